/* publish.c -- what ftiod tells the world: ZeroMQ PUB messages of two frames
 * (topic `ftio.<job>.<mode>` or `ftio.<job>.end`, then the JSON object of
 * PROTOCOL.md §2), and the same messages as JSON Lines in --log FILE:
 *     {"topic":"ftio.4711.write","message":{...}}
 * The PUB socket is bound by main.c (so a busy port fails at start-up) and
 * used only by the analysis thread.  PUB never blocks: a slow subscriber
 * loses messages at its high-water mark, ftiod does not wait for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "daemon.h"

int ftiod_publish_open(struct ftiod *d)
{
    if (!d->cfg.log_path)
        return 0;
    d->log = fopen(d->cfg.log_path, "a");
    if (!d->log) {
        ftiod_log("--log %s: %s", d->cfg.log_path, strerror(errno));
        return -1;
    }
    setvbuf(d->log, NULL, _IOLBF, 0);
    return 0;
}

void ftiod_publish_close(struct ftiod *d)
{
    if (d->log)
        fclose(d->log);
    d->log = NULL;
}

void ftiod_publish(struct ftiod *d, const char *topic, json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT);
    if (!text) {
        json_decref(obj);
        return;
    }
    size_t len = strlen(text);
    if (zmq_send(d->pub, topic, strlen(topic), ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0)
        zmq_send(d->pub, text, len, ZMQ_DONTWAIT);
    if (d->log) {
        json_t *line = json_pack("{s:s, s:O}", "topic", topic, "message", obj);
        if (line) {
            json_dumpf(line, d->log, JSON_COMPACT);
            fputc('\n', d->log);
            json_decref(line);
        }
    }
    pthread_mutex_lock(&d->lock);
    d->stats.published++;
    pthread_mutex_unlock(&d->lock);
    free(text);
    json_decref(obj);
}
