/* SPDX-License-Identifier: BSD-3-Clause */
/* h5out.c -- periodic output through Debian's parallel HDF5 (MPI-IO driver,
 * collective writes), for the realapps benchmark (bench/README.md
 * "realapps"): every phase the ranks "compute" (sleep, after a barrier), then
 * together create h5.K.h5 with one dataset of doubles, each rank its
 * contiguous slab, written collectively.  Each rank notes its own phase start
 * and end (CLOCK_REALTIME) and data bytes; rank 0 prints them at the end
 * (phaselog.h): that is the truth.
 *
 *   mpirun -np 4 h5out [-n PHASES] [-c COMPUTE_S] [-m MIB_PER_RANK] [-o DIR]
 * Defaults: 15 phases, 3 s, 16 MiB per rank and phase, DIR ".".
 * Bad options: one line on stderr, exit status 2. */
#include "phaselog.h"
#include "realapp.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void take_mib(void *mib, int letter, const char *arg)
{
    (void)letter;                      /* only -m */
    *(int *)mib = (int)realapp_int(arg, 1, 4096, "bad size");
}

static void check(herr_t rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "h5out: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    struct realapp a;
    realapp_init(&a, &argc, &argv, "h5out", "h5out [-n PHASES] [-c COMPUTE_S] [-m MIB_PER_RANK] [-o DIR]");
    int mib = 16;
    realapp_options(&a, argc, argv, 1, "m:", take_mib, &mib);
    int rank = a.rank, size = a.size;
    hsize_t mine = (hsize_t)mib << 17;      /* doubles: MiB / 8 */
    double *data = malloc(mine * sizeof *data);
    if (!data) {
        perror("h5out");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (hsize_t i = 0; i < mine; i++)
        data[i] = rank + i * 1e-9;
    char path[4096];
    for (int k = 0; k < a.phases; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_until(phaselog_now() + a.compute);
        double t0 = phaselog_now();
        snprintf(path, sizeof path, "%s/h5.%d.h5", a.dir, k);
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
        hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        check(file, "H5Fcreate");
        hsize_t total = mine * size, off = mine * rank;
        hid_t fspace = H5Screate_simple(1, &total, NULL);
        hid_t dset = H5Dcreate2(file, "x", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(dset, "H5Dcreate2");
        check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &off, NULL, &mine, NULL), "H5Sselect_hyperslab");
        hid_t mspace = H5Screate_simple(1, &mine, NULL);
        hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
        check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
        check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, data), "H5Dwrite");
        H5Pclose(dxpl);
        H5Sclose(mspace);
        H5Dclose(dset);
        H5Sclose(fspace);
        check(H5Fclose(file), "H5Fclose");
        H5Pclose(fapl);
        phaselog_add("h5", k, t0, phaselog_now(), (long long)(mine * sizeof *data));
    }
    free(data);
    phaselog_print(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
