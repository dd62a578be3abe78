#ifndef FILEDROP_CCRYPTO_SHIM_H
#define FILEDROP_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian libssl-dev): uploads' SHA-256, the EVP digests behind tus checksums, and the keys
 * and X.509 certificates of `tls = auto` (FiledropIO/TLS). The wrappers below exist only
 * because Swift cannot call the macros they stand for; all the logic stays in Swift. */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* SHA-256 called directly (deprecated since OpenSSL 3.0 in favour of EVP, still provided):
 * see FiledropIO's LibcryptoSHA256 for why. The deprecation stays confined to these three. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static inline int filedrop_SHA256_Init(SHA256_CTX *context) {
    return SHA256_Init(context);
}

static inline int filedrop_SHA256_Update(SHA256_CTX *context, const void *bytes, size_t count) {
    return SHA256_Update(context, bytes, count);
}

static inline int filedrop_SHA256_Final(unsigned char *digest, SHA256_CTX *context) {
    return SHA256_Final(digest, context);
}
#pragma clang diagnostic pop

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
