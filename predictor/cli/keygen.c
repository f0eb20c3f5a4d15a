/* keygen.c -- `ftio keygen NAME`: a CURVE key pair for ftiod (--curve-secret)
 * or for a subscriber or admin (--key; its NAME.pub goes into the daemon's
 * --curve-clients directory).  Writes NAME.key (mode 0600, never over an
 * existing file) and NAME.pub.  The format is in common/curve.h.
 */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "curve.h"

int ftio_cmd_keygen(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: ftio keygen NAME\n"
               "Writes a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub (public).\n"
               "ftiod --curve-secret NAME.key; subscribers --key NAME.key, with NAME.pub\n"
               "copied into the daemon's --curve-clients directory.\n");
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-' || !argv[1][0]) {
        fprintf(stderr, "usage: ftio keygen NAME\n");
        return 2;
    }
    char err[512];
    if (ftio_curve_keygen(argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "ftio keygen: %s\n", err);
        return 1;
    }
    printf("ftio keygen: wrote %s.key (secret) and %s.pub\n", argv[1], argv[1]);
    return 0;
}
