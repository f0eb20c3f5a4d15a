/* SPDX-License-Identifier: BSD-3-Clause */
/* message.c -- receive a multi-frame ZeroMQ message whole, bounded
 * (message.h): the ingest thread's one way of reading its two sockets. */
#include "message.h"

int ftiod_message_recv(void *sock, struct ftiod_message *m)
{
    m->n = 0;
    m->extra = false;
    zmq_msg_init(&m->f[0]);
    if (zmq_msg_recv(&m->f[0], sock, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&m->f[0]);
        return -1;
    }
    m->n = 1;
    bool more = zmq_msg_more(&m->f[0]);
    while (more) {   /* the frames of a message arrive together */
        zmq_msg_t x;
        zmq_msg_init(&x);
        if (zmq_msg_recv(&x, sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&x);
            break;
        }
        more = zmq_msg_more(&x);
        if (m->n < FTIOD_MESSAGE_FRAMES) {
            m->f[m->n++] = x;
        } else {
            m->extra = true;
            zmq_msg_close(&x);
        }
    }
    return 0;
}

void ftiod_message_close(struct ftiod_message *m)
{
    for (int i = 0; i < m->n; i++)
        zmq_msg_close(&m->f[i]);
}
