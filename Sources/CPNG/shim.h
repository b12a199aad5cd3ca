// libpng through its simplified API (png_image_*): the classic API reports
// errors with setjmp/longjmp, which Swift cannot use.
#ifndef CHAKRA_CPNG_SHIM_H
#define CHAKRA_CPNG_SHIM_H
#include <png.h>

// PNG_IMAGE_SIZE and friends are function-like macros that do not import.
static inline int CPNG_image_failed(const png_image *image) {
    return PNG_IMAGE_FAILED(*image);
}
#endif
