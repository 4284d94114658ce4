/* kpqc-handshake inproc: client and server in one process over memory
 * buffers: the handshake's pure cost, bytes per flight and heap use. */
#include <stdio.h>

#include <openssl/ssl.h>

#include "clock.h"
#include "handshake.h"

int inproc(tls_pair *t, const char *group, size_t count) {
    double sum = 0;
    for (size_t n = 0; n < count + 2; n++) {
        SSL *c = SSL_new(t->client), *s = SSL_new(t->server);
        BIO *c2s = BIO_new(BIO_s_mem()), *s2c = BIO_new(BIO_s_mem());
        BIO_up_ref(c2s), BIO_up_ref(s2c); /* each BIO is owned by both SSLs */
        SSL_set_bio(c, s2c, c2s);
        SSL_set_bio(s, c2s, s2c);
        SSL_set_connect_state(c);
        SSL_set_accept_state(s);
        size_t flights[8] = {0}, nflights = 0, live0 = live_bytes;
        peak_bytes = live_bytes, alloc_count = 0, alloc_bytes = 0;
        uint64_t t0 = bench_ns(), server_ns = 0; /* server_ns: the server's share */
        int cdone = 0, sdone = 0, rounds = 0;
        while ((!cdone || !sdone) && rounds++ < 16) {
            if (!cdone) {
                int r = SSL_do_handshake(c);
                if (r == 1) cdone = 1;
                else if (SSL_get_error(c, r) != SSL_ERROR_WANT_READ) die("client handshake failed");
            }
            size_t pending = BIO_ctrl_pending(c2s);
            if (pending && nflights < 8) flights[nflights++] = pending;
            if (!sdone) {
                uint64_t s0 = bench_ns();
                int r = SSL_do_handshake(s);
                server_ns += bench_ns() - s0;
                if (r == 1) sdone = 1;
                else if (SSL_get_error(s, r) != SSL_ERROR_WANT_READ) die("server handshake failed");
            }
            pending = BIO_ctrl_pending(s2c);
            if (pending && nflights < 8) flights[nflights++] = pending;
        }
        uint64_t t1 = bench_ns();
        if (!cdone || !sdone) die("handshake did not complete");
        if (SSL_get_verify_result(c) != X509_V_OK) die("certificate did not verify");
        const char *negotiated = SSL_group_to_name(c, SSL_get_negotiated_group(c));
        const char *peer_sig = NULL;
        if (!SSL_get0_peer_signature_name(c, &peer_sig)) peer_sig = NULL;
        /* CH | SH..Fin | Fin; a HelloRetryRequest adds a round: CH | HRR | CH2 | ... */
        int hrr = nflights > 3;
        if (n >= 2) { /* two warm-up handshakes */
            size_t total = 0;
            printf("{\"mode\":\"inproc\",\"group\":\"%s\",\"negotiated\":\"%s\",\"peer_sig\":\"%s\",\"ns\":%llu,"
                   "\"server_ns\":%llu,\"flights\":[",
                   group, negotiated ? negotiated : "?", peer_sig ? peer_sig : "?", (unsigned long long)(t1 - t0),
                   (unsigned long long)server_ns);
            for (size_t i = 0; i < nflights; i++) {
                printf("%s%zu", i ? "," : "", flights[i]);
                total += flights[i];
            }
            printf("],\"bytes\":%zu,\"hrr\":%d,\"heap_peak\":%zu,\"allocs\":%zu,\"alloc_bytes\":%zu}\n",
                   total, hrr, peak_bytes - live0, alloc_count, alloc_bytes);
            sum += (double)(t1 - t0);
        }
        SSL_free(c);
        SSL_free(s);
    }
    fprintf(stderr, "inproc %s: mean %.1f us\n", group, sum / (double)count / 1e3);
    return 0;
}
