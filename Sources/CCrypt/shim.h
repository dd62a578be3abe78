#ifndef FILEDROP_CCRYPT_SHIM_H
#define FILEDROP_CCRYPT_SHIM_H
/* libxcrypt (Debian libcrypt-dev): crypt_r and crypt_gensalt_rn, yescrypt ($y$) by default. */
#include <crypt.h>
#endif
