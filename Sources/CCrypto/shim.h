#ifndef FILEDROP_CCRYPTO_SHIM_H
#define FILEDROP_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian libssl-dev): the EVP digests behind tus checksums. */
#include <openssl/evp.h>
#endif
