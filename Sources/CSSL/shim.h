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

/* The server's options (SSL_OP_BIT cannot be imported): no renegotiation, the server's
 * cipher order, stateful session resumption (no tickets: Mozilla's advice when ticket keys
 * are not rotated), an EOF without close_notify read as an EOF (HTTP framing catches
 * truncation), and kernel TLS when asked. */
static inline void filedrop_ssl_ctx_set_server_options(SSL_CTX *context, int kernel_tls) {
    uint64_t options = SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET
        | SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF;
    if (kernel_tls) options |= SSL_OP_ENABLE_KTLS;
    SSL_CTX_set_options(context, options);
}

static inline void filedrop_ssl_ctx_set_read_ahead(SSL_CTX *context, int on) {
    SSL_CTX_set_read_ahead(context, on);
}

static inline long filedrop_ssl_ctx_set_session_cache(SSL_CTX *context, long mode, long size) {
    SSL_CTX_set_session_cache_mode(context, mode);
    return SSL_CTX_sess_set_cache_size(context, size);
}

static inline int filedrop_ssl_ctx_set_groups(SSL_CTX *context, const char *groups) {
    return (int)SSL_CTX_set1_groups_list(context, groups);
}

/* Adds a reference of its own (add1): the caller keeps and frees its certificate. */
static inline int filedrop_ssl_ctx_add_chain_certificate(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(context, certificate);
}

/* 1 when the kernel encrypts what this connection sends (kTLS), so sendfile stays zero-copy. */
static inline int filedrop_ssl_ktls_send(SSL *ssl) {
    return (int)BIO_get_ktls_send(SSL_get_wbio(ssl));
}

/* 1 when the kernel decrypts what this connection receives (kTLS). */
static inline int filedrop_ssl_ktls_receive(SSL *ssl) {
    return (int)BIO_get_ktls_recv(SSL_get_rbio(ssl));
}
#endif
