/* SPDX-License-Identifier: BSD-3-Clause */
/* transport.c -- batches out, acknowledgements back (transport.h). */
#include <errno.h>
#include <string.h>
#include <zmq.h>
#include "transport.h"

int ftio_batch_send(void *dealer, const struct ftio_auth_sender *auth, const void *batch,
                    size_t len, int flags)
{
    unsigned char frame[FTIO_AUTH_FRAME_MAX];
    size_t alen = auth ? ftio_auth_frame(auth, batch, len, frame, sizeof frame) : 0;
    if (auth && !alen) {
        errno = EINVAL;
        return -1;
    }
    /* Once the first frame is queued, ZeroMQ takes the rest of the message. */
    if (zmq_send(dealer, "", 0, flags | ZMQ_SNDMORE) != 0)
        return -1;
    if (zmq_send(dealer, batch, len, flags | (alen ? ZMQ_SNDMORE : 0)) != (int)len)
        return -1;
    if (alen && zmq_send(dealer, frame, alen, flags) != (int)alen)
        return -1;
    return 0;
}

void ftio_ack_encode(unsigned char out[FTIO_ACK_LEN], uint64_t seq, int status)
{
    memcpy(out, FTIO_ACK_MAGIC, 4);
    for (int i = 0; i < 8; i++)
        out[4 + i] = (unsigned char)(seq >> (56 - 8 * i));
    out[12] = (unsigned char)status;
}

int ftio_ack_recv(void *dealer, struct ftio_ack *ack)
{
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, dealer, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            return 0;
        }
        /* The delimiter, then the acknowledgement: keep the last frame. */
        while (zmq_msg_more(&m)) {
            zmq_msg_close(&m);
            zmq_msg_init(&m);
            if (zmq_msg_recv(&m, dealer, 0) < 0) {
                zmq_msg_close(&m);
                return 0;
            }
        }
        const unsigned char *p = zmq_msg_data(&m);
        int ok = zmq_msg_size(&m) == FTIO_ACK_LEN && memcmp(p, FTIO_ACK_MAGIC, 4) == 0;
        if (ok) {
            uint64_t seq = 0;
            for (int i = 0; i < 8; i++)
                seq = seq << 8 | p[4 + i];
            ack->seq = seq;
            ack->status = p[12];
        }
        zmq_msg_close(&m);
        if (ok)
            return 1;
    }
}

void ftio_ack_socket_close(void *sock, int left_ms)
{
    if (!sock)
        return;
    int linger = left_ms < FTIO_ACK_LINGER_MS ? left_ms : FTIO_ACK_LINGER_MS;
    if (linger < 0)
        linger = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(sock);
}
