// FreeType 2 (libfreetype-dev). Its headers are reached through the
// FT_FREETYPE_H macro, and several load flags are function-like macros
// (FT_LOAD_TARGET_*) that Swift does not import: prefixed constants here.
#ifndef CHAKRA_CFREETYPE_SHIM_H
#define CHAKRA_CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H

// Outlines only, unhinted: advances and shapes are the designer's, scaled
// linearly, so text laid out at fractional positions and sizes keeps its
// proportions at every screen size.
static const FT_Int32 CFreeType_loadFlags = FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP;
static const FT_Render_Mode CFreeType_renderNormal = FT_RENDER_MODE_NORMAL;
static const FT_UInt CFreeType_kerningUnscaled = FT_KERNING_UNSCALED;
static const FT_Long CFreeType_faceFlagKerning = FT_FACE_FLAG_KERNING;
#endif
