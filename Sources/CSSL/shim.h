#ifndef FILEDROP_CSSL_SHIM_H
#define FILEDROP_CSSL_SHIM_H
/* OpenSSL's libssl (Debian libssl-dev): TLS for the HTTPS port, driven non-blocking from
 * our epoll loops. Swift cannot call the macros below; these inline functions wrap them. */
#include <openssl/ssl.h>
#include <openssl/err.h>

static inline int filedrop_ssl_ctx_set_min_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

static inline long filedrop_ssl_ctx_set_mode(SSL_CTX *context, long mode) {
    return SSL_CTX_set_mode(context, mode);
}

static inline long filedrop_ssl_ctx_set_session_cache(SSL_CTX *context, long mode, long size) {
    SSL_CTX_set_session_cache_mode(context, mode);
    return SSL_CTX_sess_set_cache_size(context, size);
}

static inline int filedrop_ssl_ctx_set_groups(SSL_CTX *context, const char *groups) {
    return (int)SSL_CTX_set1_groups_list(context, groups);
}

static inline int filedrop_ssl_ctx_add_chain_certificate(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add0_chain_cert(context, certificate);
}

/* 1 when the kernel encrypts what this connection sends (kTLS), so sendfile stays zero-copy. */
static inline int filedrop_ssl_ktls_send(SSL *ssl) {
    return (int)BIO_get_ktls_send(SSL_get_wbio(ssl));
}

static inline const char *filedrop_ssl_op_enable_ktls_available(void) {
#ifdef SSL_OP_ENABLE_KTLS
    return "yes";
#else
    return 0;
#endif
}
#endif
