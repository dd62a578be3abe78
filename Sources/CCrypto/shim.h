#ifndef FILEDROP_CCRYPTO_SHIM_H
#define FILEDROP_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian libssl-dev): the EVP digests behind tus checksums, and the keys
 * and X.509 certificates of `tls = auto` (FiledropIO/TLS). The wrappers below exist only
 * because Swift cannot call the macros they stand for; all the logic stays in Swift. */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *filedrop_EVP_EC_gen(const char *curve) {
    return EVP_EC_gen(curve);
}

/* BIO_get_mem_data is a macro over BIO_ctrl: the bytes a memory BIO holds, and their count. */
static inline long filedrop_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/* sk_GENERAL_NAME_push is a macro over OPENSSL_sk_push with type checks. */
static inline int filedrop_sk_GENERAL_NAME_push(GENERAL_NAMES *names, GENERAL_NAME *name) {
    return sk_GENERAL_NAME_push(names, name);
}
#endif
