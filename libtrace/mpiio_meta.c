/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiio_meta.c -- MPI-IO management wrappers of libftio.so.
 *
 *   MPI_File_open     registers the path (ftio_file_register; a ROMIO-style
 *                     "ufs:" prefix is dropped first) and adds the handle to
 *                     the file map (mpiio_files.c); record op OPEN.
 *   MPI_File_close    op CLOSE; the handle leaves the map.
 *   MPI_File_delete   op META (file id of the deleted path).
 *   MPI_File_set_size, _preallocate   op META, offset = the size asked for.
 *   MPI_File_set_view op META; also notes whether etype offsets are bytes.
 *   MPI_File_sync     op SYNC.
 *   MPI_File_seek, _seek_shared       op SEEK, offset = the offset asked
 *                     for in bytes when whence is MPI_SEEK_SET, else -1.
 *   MPI_File_set_atomicity            op META.
 * Bytes are 0 for all of them.  The comm size and access mode of an open are
 * not in the record (it has no field for them); the access mode is kept in
 * the file map.  Each exists as MPI_X and PMPI_X (see mpiio.h).
 */
#include <string.h>
#include "mpiio.h"

/* Calls on an open handle: time, record {op, offset}, bytes 0. */
#define ON_HANDLE(NAME, PARAMS, ARGS, OP, OFFSET)                              \
    static inline int traced_##NAME(int (*real) PARAMS, FTIO_UNPAREN PARAMS)       \
    {                                                                          \
        struct ftio_mpi_file *f = ftio_mpi_file_find(fh);                      \
        uint64_t t0 = ftio_stamp();                                           \
        int rc = real ARGS;                                                    \
        uint64_t t1 = ftio_stamp();                                           \
        int saved = errno;                                                     \
        if (rc == MPI_SUCCESS && f && f->fid)                                  \
            ftio_mpi_emit(t0, t1, OP, 0, f->fid, (OFFSET), 0);                 \
        errno = saved;                                                         \
        return rc;                                                             \
    }                                                                          \
    FTIO_MPI_PAIR(NAME, PARAMS, ARGS)

/* Drop a ROMIO/OMPIO file-system prefix ("ufs:/x" -> "/x"). */
static const char *strip_fs_prefix(const char *path)
{
    static const char *const prefixes[] = {
        "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "daos:", "xfs:",
        "testfs:", "ime:", "quobyte:", "gekkofs:",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) == 0)
            return path + n;
    }
    return path;
}

static int64_t seek_offset(MPI_File fh, const struct ftio_mpi_file *f, MPI_Offset off, int whence)
{
    return whence == MPI_SEEK_SET ? ftio_mpi_explicit(fh, f, off) : -1;
}

ON_HANDLE(File_set_size, (MPI_File fh, MPI_Offset size), (fh, size), FTIO_OP_META, size)
ON_HANDLE(File_preallocate, (MPI_File fh, MPI_Offset size), (fh, size), FTIO_OP_META, size)
ON_HANDLE(File_sync, (MPI_File fh), (fh), FTIO_OP_SYNC, -1)
ON_HANDLE(File_set_atomicity, (MPI_File fh, int flag), (fh, flag), FTIO_OP_META, -1)
ON_HANDLE(File_seek, (MPI_File fh, MPI_Offset offset, int whence), (fh, offset, whence),
          FTIO_OP_SEEK, seek_offset(fh, f, offset, whence))
ON_HANDLE(File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence), (fh, offset, whence),
          FTIO_OP_SEEK, seek_offset(fh, f, offset, whence))

/* ---- open / close / delete / set_view ---------------------------------- */

static inline int traced_File_open(int (*real)(MPI_Comm, const char *, int, MPI_Info, MPI_File *),
                                   MPI_Comm comm, const char *filename, int amode,
                                   MPI_Info info, MPI_File *fh)
{
    uint64_t t0 = ftio_stamp();
    int rc = real(comm, filename, amode, info, fh);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (rc == MPI_SUCCESS && filename) {
        uint32_t fid = ftio_file_register(strip_fs_prefix(filename));
        /* Excluded paths stay in the map with id 0, so later calls on the
         * handle know not to trace rather than guess. */
        ftio_mpi_file_add(*fh, fid, amode);
        if (fid)
            ftio_mpi_emit(t0, t1, FTIO_OP_OPEN, FTIO_FLAG_COLLECTIVE, fid, -1, 0);   /* collective */
    }
    errno = saved;
    return rc;
}
FTIO_MPI_PAIR(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh),
     (comm, filename, amode, info, fh))

static inline int traced_File_close(int (*real)(MPI_File *), MPI_File *fh)
{
    uint64_t key = FTIO_MPI_HANDLE(*fh);       /* close sets *fh to MPI_FILE_NULL */
    struct ftio_mpi_file *f = ftio_mpi_file_find(*fh);
    uint32_t fid = f ? f->fid : 0;
    uint64_t t0 = ftio_stamp();
    int rc = real(fh);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (rc == MPI_SUCCESS && f) {
        ftio_mpi_file_remove(key);
        if (fid)
            ftio_mpi_emit(t0, t1, FTIO_OP_CLOSE, FTIO_FLAG_COLLECTIVE, fid, -1, 0);  /* collective */
    }
    errno = saved;
    return rc;
}
FTIO_MPI_PAIR(File_close, (MPI_File *fh), (fh))

static inline int traced_File_delete(int (*real)(const char *, MPI_Info),
                                     const char *filename, MPI_Info info)
{
    uint64_t t0 = ftio_stamp();
    int rc = real(filename, info);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (rc == MPI_SUCCESS && filename) {
        uint32_t fid = ftio_file_register(strip_fs_prefix(filename));
        if (fid)
            ftio_mpi_emit(t0, t1, FTIO_OP_META, 0, fid, -1, 0);
    }
    errno = saved;
    return rc;
}
FTIO_MPI_PAIR(File_delete, (const char *filename, MPI_Info info), (filename, info))

/* 1 when etype offsets of this view are plain bytes, -1 when they cannot be
 * converted (zero-size etype), 0 when MPI_File_get_byte_offset must do it. */
static int classify_view(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype)
{
    MPI_Count esize = 0, lb = 0, extent = 0;
    if (etype == MPI_DATATYPE_NULL || ftio_mpi_h.type_size_x(etype, &esize) != MPI_SUCCESS ||
        esize <= 0 || esize == MPI_UNDEFINED)
        return -1;
    if (disp == 0 && etype == filetype && esize == 1 &&
        ftio_mpi_h.type_get_extent_x(etype, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 1)
        return 1;
    return 0;
}

static inline int traced_File_set_view(int (*real)(MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype,
                                                   const char *, MPI_Info),
                                       MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                       MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    struct ftio_mpi_file *f = ftio_mpi_file_find(fh);
    uint64_t t0 = ftio_stamp();
    int rc = real(fh, disp, etype, filetype, datarep, info);
    uint64_t t1 = ftio_stamp();
    int saved = errno;
    if (rc == MPI_SUCCESS && f) {
        f->simple_view = classify_view(disp, etype, filetype);
        ftio_mpi_file_changed();
        if (f->fid)
            ftio_mpi_emit(t0, t1, FTIO_OP_META, 0, f->fid, -1, 0);
    }
    errno = saved;
    return rc;
}
FTIO_MPI_PAIR(File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                     const char *datarep, MPI_Info info),
     (fh, disp, etype, filetype, datarep, info))
