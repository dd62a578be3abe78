#ifndef FILEDROP_CZLIB_SHIM_H
#define FILEDROP_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 is a macro that Swift cannot call; this wraps it. */
static inline int filedrop_deflateInit2(z_streamp strm, int level, int method, int windowBits,
                                        int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

/* inflateInit2 is a macro too; tests inflate what the server deflated. */
static inline int filedrop_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
