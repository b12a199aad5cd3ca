// libpng through its simplified API (png_image_*): the classic API reports
// errors with setjmp/longjmp, which Swift cannot use.
#ifndef CHAKRA_CPNG_SHIM_H
#define CHAKRA_CPNG_SHIM_H
#include <png.h>

// PNG_IMAGE_SIZE and friends are function-like macros that do not import.
static inline int CPNG_image_failed(const png_image *image) {
    return PNG_IMAGE_FAILED(*image);
}

// The most bytes png_image_write_to_memory can need for `image`: enough
// memory given once, the image is compressed once (asking for the size
// first compresses it twice).
static inline size_t CPNG_image_png_size_max(const png_image *image) {
    return PNG_IMAGE_PNG_SIZE_MAX(*image);
}
#endif
