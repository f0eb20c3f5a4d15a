/* SPDX-License-Identifier: BSD-3-Clause */
/* libc_reads.c -- what glibc reads (and writes) on the program's behalf,
 * counted from the kernel's and glibc's own numbers, so that the kernel
 * cross-check (unseen.c) tells it from I/O that no wrapper saw.  Three
 * kinds, each exact:
 *
 *  - glibc's own files: setlocale() and newlocale() read locale.alias (and
 *    locales kept outside the archive), the first conversion of a time reads
 *    the time zone's file, sysconf() the CPU lists and ngroups_max, the
 *    name services (getaddrinfo, gethostbyname, getpwnam...) nsswitch.conf,
 *    /etc/hosts, resolv.conf, passwd..., sem_open(O_CREAT) writes the new
 *    semaphore into its file, perror() and vwarn() their message on stderr
 *    (below: "messages on stderr"), all inside libc, through no wrapper.  The
 *    calling thread's rchar and wchar are read before and after the real
 *    call: the difference is what glibc read (or wrote) there.  Two /proc
 *    reads (6 system calls, ~10 us) per call that names a locale other than
 *    "C" or "POSIX" (glibc loads no file for those, nor for a query, nor for
 *    "" in an environment that names no other), per tzset() and the first
 *    time conversion, per sysconf() of a name that reads a file, per
 *    name-service call, per sem_open(O_CREAT), per message.
 *  - loader: for every object it maps, the dynamic loader reads the ELF
 *    header (832 bytes on 64-bit: glibc's struct filebuf) and, when they lie
 *    beyond it, the program headers (twice: open_verify and
 *    _dl_map_object_from_fd) and the notes it searches for the ABI tag.  For
 *    the objects loaded after the image started (dlopen and what it pulls
 *    in) those bytes are computed from each object's headers in memory,
 *    found by dl_iterate_phdr.  Objects are looked at before every dlclose
 *    (what it unloads must be counted first) and at the end.  dlopen itself
 *    is not wrapped: glibc finds the library through its caller's RUNPATH
 *    and $ORIGIN, and a wrapper would become that caller.  The shim's own
 *    loads (lazy.c, in the flusher, whose I/O is not the application's) are
 *    set apart (LOOK_SHIM below).
 *  - read-ahead: a stream reads a block; the program consumes part of it and
 *    the records (or ftio_passed) hold what it consumed.  What was read and
 *    not consumed is still in the FILE's get area (_IO_read_end -
 *    _IO_read_ptr) when the stream is closed, flushed, repositioned, or still
 *    open at the end; a seek that refills the buffer read a block more.
 *    Counted for read-only byte streams on a descriptor.  What fscanf and
 *    getmntent consume (they do not say) is the move of the same pointer.
 *
 * Plus the cross-check's own /proc reads in application threads.  Nothing
 * here is on a data call's path: fclose, fflush and the seeks pay a few
 * loads of the FILE, dlclose a look at the loader's list, the calls above
 * their two /proc reads.
 * What is left is what no wrapper and none of these numbers explain
 * (libtrace/README.md, known limits).
 */
#include <dlfcn.h>
#include <elf.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <grp.h>
#include <mntent.h>
#include <netdb.h>
#include <pwd.h>
#include <signal.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <system_link.h>   /* the system's <link.h>: dl_iterate_phdr */
#include <unistd.h>
#include "internal.h"
#include "libc_reads.h"

/* ---- the counts ------------------------------------------------------- */

/* The wrappers here are of rare calls: their next definitions are resolved
 * at their first call (FTIO_REAL_OR), not listed in the ftio_syms table
 * that the constructor resolves and whose page its state shares.  Their
 * pointers are on the page every traced call reads (FTIO_HOT): alone in
 * .bss, setlocale's, which nearly every program calls first, was a page
 * fault of its own (bench/README.md "exit14"). */
#define RARE_WRAPPER(ret, name, params)                                       \
    static ret (*real_##name) params FTIO_HOT;                                \
    FTIO_WRAP(ret, name, params)

static struct {
    _Atomic uint64_t files;      /* glibc's own files: locales, time zone, CPU list */
    _Atomic uint64_t loader;     /* the loader's reads of objects loaded after start */
    _Atomic int64_t  readahead;  /* stdio: read and never consumed (signed: see fork) */
    _Atomic uint64_t own;        /* this file's /proc reads in application threads */
} lr FTIO_WARM;

/* In an application thread of a traced image: its kernel counts are in the
 * total (unseen.c), so what it reads on the program's behalf is explained
 * here; the thread's counts are then kept at its exit. */
static int app_thread(void)
{
    if (!ftio_unseen_started() || ftio_private_table_thread())
        return 0;
    ftio_unseen_thread();
    return 1;
}

/* ---- locale ----------------------------------------------------------- */

static int c_locale(const char *name)
{
    return !name || !*name || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0;
}

/* Can glibc load a file for this name?  Not for "C" or "POSIX", nor a
 * query (NULL), nor "" when the environment names only those (glibc takes
 * LC_ALL, else the category's variable, else LANG: any of them). */
static int loads_a_file(const char *locale)
{
    static const char *const vars[] = {
        "LANG", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES",
        "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION",
    };
    if (!locale)
        return 0;
    if (*locale)
        return !c_locale(locale);
    const char *all = getenv("LC_ALL");
    if (all && *all)
        return !c_locale(all);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (!c_locale(getenv(vars[i])))
            return 1;
    return 0;
}

struct window {
    int open;
    uint64_t io[2];              /* the thread's rchar and wchar before the call */
};

enum { LOOK_ADOPT, LOOK_COUNT, LOOK_SHIM };      /* (a look's mode: below) */
static void loader_look(int mode);

/* Around a library call that reads or writes through no wrapper: the
 * thread's rchar and wchar before and after.  Objects the call loads are
 * the loader's (counted before, adopted after: the window holds their reads
 * already). */
static void window_open(struct window *w)
{
    w->open = 0;
    if (!app_thread())
        return;
    int e = errno;
    loader_look(LOOK_COUNT);
    uint64_t len;
    if (ftio_unseen_thread_io(w->io, &len) == 0) {
        w->io[0] += len;                       /* this read, counted after it */
        atomic_fetch_add(&lr.own, len);
        w->open = 1;
    }
    errno = e;
}

/* What was read goes `into` one of the counts above; what was written
 * (sem_open's semaphore file) passed through this wrapper without a
 * record, as a write to an excluded file does: ftio_passed_bytes. */
static void window_close(const struct window *w, _Atomic uint64_t *into)
{
    if (!w->open)
        return;
    int e = errno;
    uint64_t now[2], len;
    if (ftio_unseen_thread_io(now, &len) == 0) {
        atomic_fetch_add(&lr.own, len);
        if (now[0] > w->io[0])
            atomic_fetch_add(into, now[0] - w->io[0]);
        if (now[1] > w->io[1])
            atomic_fetch_add_explicit(&ftio_passed_bytes[FTIO_OP_WRITE], now[1] - w->io[1],
                                      memory_order_relaxed);
    }
    loader_look(LOOK_ADOPT);
    errno = e;
}

/* The value of `call`, made between the thread's rchar before and after. */
#define IN_WINDOW(type, call)                                                 \
    ({                                                                        \
        struct window w_;                                                     \
        window_open(&w_);                                                     \
        type r_ = (call);                                                     \
        window_close(&w_, &lr.files);                                         \
        r_;                                                                   \
    })
/* A wrapper whose body is `shape(ret, the call)`. */
#define WINDOWED(ret, name, params, args, failret, shape)                     \
    RARE_WRAPPER(ret, name, params)                                           \
    {                                                                         \
        FTIO_REAL_OR(name, failret);                                          \
        shape(ret, real_##name args);                                         \
    }
#define ALWAYS(ret, call) return IN_WINDOW(ret, call)

RARE_WRAPPER(char *, setlocale, (int category, const char *locale))
{
    FTIO_REAL_OR(setlocale, NULL);
    if (!loads_a_file(locale))
        return real_setlocale(category, locale);
    return IN_WINDOW(char *, real_setlocale(category, locale));
}

RARE_WRAPPER(locale_t, newlocale, (int mask, const char *locale, locale_t base))
{
    FTIO_REAL_OR(newlocale, (locale_t)0);
    if (!loads_a_file(locale))
        return real_newlocale(mask, locale, base);
    return IN_WINDOW(locale_t, real_newlocale(mask, locale, base));
}

/* The time zone: glibc reads TZ's file (/etc/localtime) on the first
 * conversion of a time, whichever function asks (tzset_internal), and again
 * only when TZ changes (not counted: libtrace/README.md).  The first call
 * of each is watched; later ones pay one load. */
static _Atomic int tz_read;
#define TZ_FIRST(type, call)                                                  \
    do {                                                                      \
        if (atomic_load_explicit(&tz_read, memory_order_relaxed))             \
            return call;                                                      \
        type r = IN_WINDOW(type, call);                                       \
        atomic_store(&tz_read, 1);                                            \
        return r;                                                             \
    } while (0)
#define TZ(ret, name, params, args, failret) WINDOWED(ret, name, params, args, failret, TZ_FIRST)
TZ(time_t,      mktime,      (struct tm *tm),                     (tm),       (time_t)-1)
TZ(time_t,      timelocal,   (struct tm *tm),                     (tm),       (time_t)-1)
TZ(struct tm *, localtime,   (const time_t *t),                   (t),        NULL)
TZ(struct tm *, localtime_r, (const time_t *t, struct tm *tm),    (t, tm),    NULL)
TZ(struct tm *, gmtime,      (const time_t *t),                   (t),        NULL)
TZ(struct tm *, gmtime_r,    (const time_t *t, struct tm *tm),    (t, tm),    NULL)
TZ(char *,      ctime,       (const time_t *t),                   (t),        NULL)
TZ(char *,      ctime_r,     (const time_t *t, char *buf),        (t, buf),   NULL)
TZ(size_t,      strftime,    (char *s, size_t max, const char *f, const struct tm *tm), (s, max, f, tm), 0)

RARE_WRAPPER(void, tzset, (void))
{
    if (ftio_unlikely(!ftio_real((void **)&real_tzset, "tzset")))
        return;
    IN_WINDOW(int, (real_tzset(), 0));
    atomic_store(&tz_read, 1);
}

/* Name services: glibc reads nsswitch.conf, /etc/hosts, resolv.conf,
 * host.conf, passwd, group... (and loads NSS modules) inside these calls.
 * Each pays the window: rare calls, slower than it by far. */
#define NSS(ret, name, params, args, failret) WINDOWED(ret, name, params, args, failret, ALWAYS)
NSS(int, getaddrinfo, (const char *node, const char *service, const struct addrinfo *hints,
                       struct addrinfo **res), (node, service, hints, res), EAI_SYSTEM)
NSS(int, getnameinfo, (const struct sockaddr *sa, socklen_t salen, char *host, socklen_t hostlen,
                       char *serv, socklen_t servlen, int flags),
    (sa, salen, host, hostlen, serv, servlen, flags), EAI_SYSTEM)
NSS(struct hostent *, gethostbyname, (const char *name), (name), NULL)
NSS(struct hostent *, gethostbyname2, (const char *name, int af), (name, af), NULL)
NSS(int, gethostbyname_r, (const char *name, struct hostent *h, char *buf, size_t len,
                           struct hostent **res, int *herr), (name, h, buf, len, res, herr), ENOSYS)
NSS(int, gethostbyname2_r, (const char *name, int af, struct hostent *h, char *buf, size_t len,
                            struct hostent **res, int *herr), (name, af, h, buf, len, res, herr), ENOSYS)
NSS(struct hostent *, gethostbyaddr, (const void *a, socklen_t len, int type), (a, len, type), NULL)
NSS(struct passwd *, getpwnam, (const char *name), (name), NULL)
NSS(struct passwd *, getpwuid, (uid_t uid), (uid), NULL)
NSS(int, getpwnam_r, (const char *name, struct passwd *p, char *buf, size_t len, struct passwd **res),
    (name, p, buf, len, res), ENOSYS)
NSS(int, getpwuid_r, (uid_t uid, struct passwd *p, char *buf, size_t len, struct passwd **res),
    (uid, p, buf, len, res), ENOSYS)
NSS(struct group *, getgrnam, (const char *name), (name), NULL)
NSS(struct group *, getgrgid, (gid_t gid), (gid), NULL)

/* The sysconf names whose answer glibc 2.36 reads from a file
 * (sysdeps/unix/sysv/linux/sysconf.c, getsysstats.c), at every call: the
 * CPU lists (/sys/devices/system/cpu/possible and online; /proc/stat when
 * they are missing), /proc/sys/kernel/ngroups_max, and rtsig-max when
 * getrlimit fails; get_nprocs_conf() and get_nprocs() read the CPU lists
 * too (hwloc, under every Open MPI rank's MPI_Init, asks for the online
 * ones).  The other names read nothing. */
static int sysconf_reads(int name)
{
    return name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN || name == _SC_NGROUPS_MAX ||
           name == _SC_SIGQUEUE_MAX;
}

RARE_WRAPPER(long, sysconf, (int name))
{
    FTIO_REAL_OR(sysconf, -1);
    if (!sysconf_reads(name))
        return real_sysconf(name);
    return IN_WINDOW(long, real_sysconf(name));
}
WINDOWED(int, get_nprocs_conf, (void), (), 1, ALWAYS)
WINDOWED(int, get_nprocs, (void), (), 1, ALWAYS)

/* sem_open(O_CREAT) writes the new semaphore (a sem_t, 32 bytes on 64-bit)
 * into a file it creates in /dev/shm, inside libc (Open MPI's shared file
 * pointer, under every parallel HDF5 file's creation); without O_CREAT it
 * writes nothing. */
RARE_WRAPPER(sem_t *, sem_open, (const char *name, int oflag, ...))
{
    FTIO_REAL_OR(sem_open, SEM_FAILED);
    if (!(oflag & O_CREAT))
        return real_sem_open(name, oflag);
    va_list ap;
    va_start(ap, oflag);
    mode_t mode = va_arg(ap, mode_t);
    unsigned value = va_arg(ap, unsigned);
    va_end(ap);
    return IN_WINDOW(sem_t *, real_sem_open(name, oflag, mode, value));
}

/* ---- messages on stderr ----------------------------------------------- */

/* perror, psignal, psiginfo, herror, vwarn and vwarnx write their message
 * to stderr through glibc's own stdio, past every wrapper.  The bytes they
 * give the stream count as fprintf(stderr)'s do (stdio.c: passed): what the
 * thread wrote in the call (the window), plus what more stderr's buffer
 * holds after it than before (a buffered stderr writes that later, inside
 * glibc; less, when the call wrote bytes given before).  error() is not
 * watched: it flushes stdout first, whose bytes counted when they were
 * given (libtrace/README.md, known limits). */
static int64_t stderr_pending(void)
{
    FILE *fp = stderr;
    return fp && fp->_mode <= 0 && fp->_IO_write_ptr > fp->_IO_write_base ?
           fp->_IO_write_ptr - fp->_IO_write_base : 0;
}

#define MESSAGE(call)                                                         \
    do {                                                                      \
        struct window w_;                                                     \
        window_open(&w_);                                                     \
        int64_t pending_ = stderr_pending();                                  \
        call;                                                                 \
        if (w_.open)                                                          \
            atomic_fetch_add_explicit(&ftio_passed_bytes[FTIO_OP_WRITE],      \
                                      (uint64_t)(stderr_pending() - pending_), \
                                      memory_order_relaxed);                  \
        window_close(&w_, &lr.files);                                         \
    } while (0)
#define MESSAGE_WRAPPER(name, params, args)                                   \
    RARE_WRAPPER(void, name, params)                                          \
    {                                                                         \
        FTIO_REAL_OR_RETURN(name, );                                          \
        MESSAGE(real_##name args);                                            \
    }
MESSAGE_WRAPPER(perror,   (const char *s),                       (s))
MESSAGE_WRAPPER(psignal,  (int sig, const char *s),              (sig, s))
MESSAGE_WRAPPER(psiginfo, (const siginfo_t *info, const char *s), (info, s))
MESSAGE_WRAPPER(herror,   (const char *s),                       (s))
MESSAGE_WRAPPER(vwarn,    (const char *fmt, va_list ap),         (fmt, ap))
MESSAGE_WRAPPER(vwarnx,   (const char *fmt, va_list ap),         (fmt, ap))

/* warn/warnx/err/errx/verr/verrx are not wrapped: a shared library that
 * exports a function or a variable of one of those short names of its own
 * would be bound to the shim's instead (a preloaded definition comes before
 * the library's), so their messages stay unseen (libtrace/README.md, known
 * limits).  glibc's warn() does not call vwarn() through its PLT either. */

/* ---- the loader ------------------------------------------------------- */

/* glibc's struct filebuf (elf/dl-load.h): the loader's first read of an
 * object, on 64-bit. */
#define LOADER_FIRST_READ 832

/* The objects loaded after start that are counted, by address, in an open
 * addressing table (static: looked at rarely, and never by a process that
 * loads nothing after start).  Each look marks the objects present with its
 * generation; a look after objects went away keeps the marked ones only. */
#define LOADED_SLOTS 4096          /* a power of two; at most half full */
struct loaded { uintptr_t key; uint32_t gen; };
static struct {
    pthread_mutex_t mu;
    unsigned long long adds, subs; /* dl_iterate_phdr's counters at the last look */
    uint32_t gen;
    size_t n;
    int full;                      /* an object could not be noted: not counted */
    int cur;                       /* ld_slot[cur]: the table in use */
    int shim_loading;              /* the flusher is loading its libraries */
    size_t nnames;                 /* ld_names: theirs, the sonames they need, transitively */
    uintptr_t handle_keys[4];      /* the objects it dlopen()ed */
    int nhandles;
} ld FTIO_EARLY;                   /* (zeros: PTHREAD_MUTEX_INITIALIZER) */
/* (Apart: every process's end takes the lock; few ever fill these.) */
static struct loaded ld_slot[2][LOADED_SLOTS];
static char ld_names[64][64];
/* (noted by the constructor: on its page, not the table's) */
static struct {
    int started;                   /* the image's objects noted */
    size_t initial;                /* objects present at start: the first ones listed */
} ld_start FTIO_WARM;

/* An object while it is loaded: its load address and its name's copy
 * (dl_iterate_phdr's dlpi_name is the link map's l_name). */
static uintptr_t object_key(uintptr_t addr, const char *name)
{
    return addr ^ ((uintptr_t)name << 1);
}

static struct loaded *find(struct loaded *t, uintptr_t key)
{
    size_t i = (key * 0x9E3779B97F4A7C15ull) >> 52 & (LOADED_SLOTS - 1);
    while (t[i].key && t[i].key != key)
        i = (i + 1) & (LOADED_SLOTS - 1);
    return &t[i];
}

/* The bytes glibc 2.36's open_verify and _dl_map_object_from_fd read of an
 * object mapped in memory (elf/dl-load.c): the first read, the program
 * headers when they are past it (read by both), and each PT_NOTE it searches
 * for the ABI tag that lies past it.  0 when the headers are not mapped. */
static uint64_t loader_bytes(const struct dl_phdr_info *info)
{
    const ElfW(Phdr) *ph = info->dlpi_phdr;
    const ElfW(Ehdr) *eh = NULL;
    uint64_t size_at_least = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        if (ph[i].p_offset == 0 && !eh)
            eh = (const ElfW(Ehdr) *)(info->dlpi_addr + ph[i].p_vaddr);
        if (ph[i].p_offset + ph[i].p_filesz > size_at_least)
            size_at_least = ph[i].p_offset + ph[i].p_filesz;
    }
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return 0;
    uint64_t first = LOADER_FIRST_READ;
    if (size_at_least < first) {               /* a file shorter than the read? */
        struct stat st;     /* (raw: no wrapper of ours on the way) */
        if (!info->dlpi_name || syscall(SYS_newfstatat, AT_FDCWD, info->dlpi_name, &st, 0) != 0)
            return 0;
        if ((uint64_t)st.st_size < first)
            first = (uint64_t)st.st_size;
    }
    uint64_t bytes = first;
    uint64_t phlen = (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr));
    if (eh->e_phoff + phlen > first)
        bytes += 2 * phlen;
    /* open_verify's search: the first PT_NOTE (>= 32 bytes, aligned 4 or
     * 8) holding the GNU ABI tag ends it; each searched one past the first
     * read was read with pread. */
    static const ElfW(Word) abi_tag[4] = { 4, 16, 1, 0x00554e47 /* "GNU\0" */ };
    for (int i = 0; i < eh->e_phnum && i < info->dlpi_phnum; i++) {
        if (ph[i].p_type != PT_NOTE || ph[i].p_filesz < 32 || (ph[i].p_align != 4 && ph[i].p_align != 8))
            continue;
        uint64_t size = ph[i].p_filesz;
        if (ph[i].p_offset + size > first)
            bytes += size;
        const char *note = (const char *)(info->dlpi_addr + ph[i].p_vaddr);
        while (memcmp(note, abi_tag, sizeof abi_tag) != 0) {
            const ElfW(Word) *w = (const ElfW(Word) *)note;
            uint64_t a = ph[i].p_align;
            uint64_t next = ((sizeof(ElfW(Nhdr)) + w[0] + a - 1) & ~(a - 1)) + ((w[1] + a - 1) & ~(a - 1));
            if (size - 32 < next) {
                size = 0;
                break;
            }
            size -= next;
            note += next;
        }
        if (size != 0)
            break;
    }
    return bytes;
}

/* A look counts the objects it finds new (LOOK_COUNT: the loader read them
 * for the application), or adopts them (LOOK_ADOPT: their reads are counted
 * already), or, at the end of the shim's own loads (LOOK_SHIM), adopts
 * those its dlopens loaded and counts the others.  The loader runs one
 * dlopen at a time and appends what it loads to the list, so a dlopen of
 * the shim's loaded its library's object and, right after it, those of
 * the libraries it needs that were not loaded yet: the run of new objects
 * from the library's own, while their names are among what the shim's
 * libraries need.  While the shim loads, a counting look leaves new
 * objects for that end: they may be the shim's. */
struct look {
    int mode;
    int full;                      /* every object listed (not only the counters) */
    int left;                      /* new objects left for a later look */
    int run;                       /* LOOK_SHIM: inside the run one of its dlopens loaded */
    size_t index;
    uint64_t bytes;
};

/* ---- the shim's own libraries: their names ------------------------------ */

/* An object's dynamic section and string table (glibc relocates DT_STRTAB
 * in place on most targets; not on some, nor in the vDSO). */
static const char *dyn_strtab(const ElfW(Dyn) *dyn, uintptr_t addr)
{
    for (const ElfW(Dyn) *d = dyn; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            return (const char *)(d->d_un.d_ptr < addr ? addr + d->d_un.d_ptr : d->d_un.d_ptr);
    return NULL;
}

static const ElfW(Dyn) *object_dyn(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return NULL;
}

/* Its soname, else its file's name. */
static const char *object_name(const ElfW(Dyn) *dyn, uintptr_t addr, const char *path)
{
    const char *str = dyn_strtab(dyn, addr);
    for (const ElfW(Dyn) *d = dyn; str && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_SONAME)
            return str + d->d_un.d_val;
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

static int shim_name(const char *name)
{
    for (size_t i = 0; i < ld.nnames; i++)
        if (strcmp(ld_names[i], name) == 0)
            return 1;
    return 0;
}

static int add_name(const char *name)
{
    if (!*name || shim_name(name) || ld.nnames == sizeof ld_names / sizeof ld_names[0] ||
        strlen(name) >= sizeof ld_names[0])
        return 0;
    strcpy(ld_names[ld.nnames++], name);
    return 1;
}

/* Adds the object's name and those it needs; 1 when a name was new. */
static int add_needs(const ElfW(Dyn) *dyn, uintptr_t addr, const char *path)
{
    int added = add_name(object_name(dyn, addr, path));
    const char *str = dyn_strtab(dyn, addr);
    for (const ElfW(Dyn) *d = dyn; str && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED)
            added |= add_name(str + d->d_un.d_val);
    return added;
}

/* Walks the new objects named so far, adding what they need. */
static int needs_of_named(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct look *l = arg;
    if (l->index++ < ld_start.initial)
        return 0;
    const ElfW(Dyn) *dyn = object_dyn(info);
    if (dyn && shim_name(object_name(dyn, info->dlpi_addr, info->dlpi_name)))
        l->left |= add_needs(dyn, info->dlpi_addr, info->dlpi_name);
    return 0;
}

static int shim_object(const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = object_dyn(info);
    return dyn && shim_name(object_name(dyn, info->dlpi_addr, info->dlpi_name));
}

static int look_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct look *l = arg;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return 1;
    if (l->index == 0 && !l->full) {
        if (info->dlpi_adds == ld.adds && info->dlpi_subs == ld.subs)
            return 1;                          /* nothing loaded or unloaded since */
        l->full = 1;
        ld.adds = info->dlpi_adds;
        ld.subs = info->dlpi_subs;
        ld.gen++;
    }
    if (l->index++ < ld_start.initial)
        return 0;                              /* the image's own objects */
    struct loaded *t = ld_slot[ld.cur];
    uintptr_t key = object_key(info->dlpi_addr, info->dlpi_name);
    struct loaded *e = find(t, key);
    if (l->mode == LOOK_SHIM) {
        int handle = 0;
        for (int i = 0; i < ld.nhandles; i++)
            handle |= ld.handle_keys[i] == key;
        l->run = !e->key && (handle || (l->run && shim_object(info)));
    }
    if (!e->key) {
        if (l->mode == LOOK_COUNT && ld.shim_loading) {
            l->left = 1;
            return 0;
        }
        if (ld.n >= LOADED_SLOTS / 2) {
            ld.full = 1;
            return 0;
        }
        e->key = key;
        ld.n++;
        if (l->mode == LOOK_COUNT || (l->mode == LOOK_SHIM && !l->run))
            l->bytes += loader_bytes(info);
    }
    e->gen = ld.gen;
    return 0;
}

/* Look at the objects loaded since the last look: count (or adopt) the new
 * ones; forget those gone.  Under ld.mu (dlclose in several threads, the
 * flusher's end). */
static void loader_look(int mode)
{
    if (!ld_start.started)
        return;
    int e = errno;
    pthread_mutex_lock(&ld.mu);
    unsigned long long subs = ld.subs;
    struct look l = { .mode = mode };
    dl_iterate_phdr(look_object, &l);
    if (l.left)
        ld.adds = ~0ull;                       /* the next look lists them again */
    if (l.full && ld.subs != subs) {           /* objects went away: keep the present ones */
        struct loaded *from = ld_slot[ld.cur], *to = ld_slot[!ld.cur];
        memset(to, 0, sizeof ld_slot[0]);
        ld.n = 0;
        for (size_t i = 0; i < LOADED_SLOTS; i++)
            if (from[i].key && from[i].gen == ld.gen) {
                *find(to, from[i].key) = from[i];
                ld.n++;
            }
        ld.cur = !ld.cur;
    }
    pthread_mutex_unlock(&ld.mu);
    if (l.bytes)
        atomic_fetch_add(&lr.loader, l.bytes);
    errno = e;
}

/* The objects present at start are the image's own: the first ones
 * listed, for ever (what a program needs to start is never unloaded).
 * Counted on the loader's public list, single-threaded (the constructor):
 * no lock, no code of libc's. */
static void loader_start(void)
{
    for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next)
        ld_start.initial++;
    ld_start.started = 1;
}

RARE_WRAPPER(int, dlclose, (void *handle))
{
    FTIO_REAL_OR(dlclose, -1);
    if (app_thread())
        loader_look(LOOK_COUNT);                        /* before what it unloads is gone */
    return real_dlclose(handle);
}

void ftio_libc_reads_shim_loading(void)
{
    loader_look(LOOK_COUNT);
    pthread_mutex_lock(&ld.mu);
    ld.shim_loading = 1;
    pthread_mutex_unlock(&ld.mu);
}

void ftio_libc_reads_shim_loaded(void *const *handles, int n)
{
    if (!ld_start.started)
        return;
    pthread_mutex_lock(&ld.mu);
    ld.nhandles = 0;
    for (int i = 0; i < n && ld.nhandles < 4; i++) {
        struct link_map *m;
        if (handles[i] && dlinfo(handles[i], RTLD_DI_LINKMAP, &m) == 0 && m->l_ld) {
            add_needs(m->l_ld, m->l_addr, m->l_name);
            ld.handle_keys[ld.nhandles++] = object_key(m->l_addr, m->l_name);
        }
    }
    for (int pass = 0; pass < 16; pass++) {    /* what those need, in turn */
        struct look l = { 0 };
        dl_iterate_phdr(needs_of_named, &l);
        if (!l.left)
            break;
    }
    ld.shim_loading = 0;
    ld.adds = ~0ull;
    pthread_mutex_unlock(&ld.mu);
    loader_look(LOOK_SHIM);
}

/* ---- stdio's read-ahead ----------------------------------------------- */

/* glibc's FILE flags (libio/libio.h), and its "position unknown". */
#define GLIBC_IO_MAGIC_MASK 0xFFFF0000u
#define GLIBC_IO_MAGIC      0xFBAD0000u
#define GLIBC_IO_NO_WRITES  0x0008
#define GLIBC_IO_IN_BACKUP  0x0100
#define GLIBC_IO_POS_BAD    ((off64_t)-1)

/* A read-only byte stream on a descriptor, not reading pushed-back
 * characters: its get area holds bytes the kernel gave it. */
static int readahead_stream(const FILE *fp)
{
    return fp && ((unsigned)fp->_flags & GLIBC_IO_MAGIC_MASK) == GLIBC_IO_MAGIC &&
           (fp->_flags & GLIBC_IO_NO_WRITES) && !(fp->_flags & GLIBC_IO_IN_BACKUP) &&
           fp->_fileno >= 0 && fp->_mode <= 0 && fp->_IO_read_base;
}

static int64_t unconsumed(const FILE *fp)
{
    return fp->_IO_read_end > fp->_IO_read_ptr ? fp->_IO_read_end - fp->_IO_read_ptr : 0;
}

void ftio_readahead_note(FILE *fp, struct ftio_getarea *g)
{
    g->ok = readahead_stream(fp) && app_thread();
    if (!g->ok)
        return;
    g->unread = unconsumed(fp);
    /* glibc's seek stays in the buffer (no read) for a target in
     * [start, _offset) (libio/fileops.c, _IO_new_file_seekoff). */
    g->known = fp->_offset != GLIBC_IO_POS_BAD && fp->_IO_buf_base;
    g->to = fp->_offset;
    g->from = g->known ? fp->_offset - (fp->_IO_read_end - fp->_IO_buf_base) : 0;
}

void ftio_readahead_done(FILE *fp, const struct ftio_getarea *g, int how)
{
    if (!g->ok)
        return;
    int64_t read = 0, unread = 0;
    if (how != FTIO_READAHEAD_CLOSE && readahead_stream(fp)) {
        unread = unconsumed(fp);
        if (how == FTIO_READAHEAD_SEEK && fp->_offset != GLIBC_IO_POS_BAD) {
            int64_t target = fp->_offset - (fp->_IO_read_end - fp->_IO_read_ptr);
            if (!(g->known && target >= g->from && target < g->to))
                read = fp->_IO_read_end - fp->_IO_buf_base;   /* the block it read */
        }
    }
    /* read = consumed + unconsumed + dropped: what the call dropped (or,
     * for a seek back inside the buffer, gave to be consumed again). */
    int64_t dropped = read - (unread - g->unread);
    if (dropped)
        atomic_fetch_add(&lr.readahead, dropped);
}

void ftio_readahead_dropped(FILE *fp)
{
    struct ftio_getarea g;
    ftio_readahead_note(fp, &g);
    ftio_readahead_done(fp, &g, FTIO_READAHEAD_CLOSE);
}

/* What a call that does not say how much it read (fscanf, getmntent)
 * consumed: the move of the get area's pointer, within one block, or the
 * rest of the block and the start of the next one (glibc refills its buffer
 * in place: a call that consumed more than a block's worth read blocks in
 * between, which are not counted). */
void ftio_consume_note(FILE *fp, struct ftio_consume *c)
{
    c->ok = fp && ((unsigned)fp->_flags & GLIBC_IO_MAGIC_MASK) == GLIBC_IO_MAGIC &&
            !(fp->_flags & GLIBC_IO_IN_BACKUP) && fp->_fileno >= 0 && fp->_mode <= 0;
    if (c->ok) {
        c->ptr = fp->_IO_read_ptr;
        c->end = fp->_IO_read_end;
    }
}

void ftio_consume_done(FILE *fp, const struct ftio_consume *c)
{
    if (!c->ok || (fp->_flags & GLIBC_IO_IN_BACKUP))
        return;
    int64_t n;
    if (fp->_IO_read_end == c->end && fp->_IO_read_ptr >= c->ptr)
        n = fp->_IO_read_ptr - c->ptr;
    else
        n = (c->end - c->ptr) + (fp->_IO_read_ptr - fp->_IO_read_base);
    ftio_passed(FTIO_OP_READ, n);
}

/* The mount table: setmntent opens it and endmntent closes it inside libc,
 * getmntent reads it through libc's own stdio: consumed bytes passed,
 * read-ahead dropped at the end as by fclose. */
RARE_WRAPPER(struct mntent *, getmntent, (FILE *fp))
{
    FTIO_REAL_OR(getmntent, NULL);
    struct ftio_consume c;
    ftio_consume_note(fp, &c);
    struct mntent *r = real_getmntent(fp);
    ftio_consume_done(fp, &c);
    return r;
}

RARE_WRAPPER(struct mntent *, getmntent_r, (FILE *fp, struct mntent *m, char *buf, int len))
{
    FTIO_REAL_OR(getmntent_r, NULL);
    struct ftio_consume c;
    ftio_consume_note(fp, &c);
    struct mntent *r = real_getmntent_r(fp, m, buf, len);
    ftio_consume_done(fp, &c);
    return r;
}

RARE_WRAPPER(int, endmntent, (FILE *fp))
{
    FTIO_REAL_OR(endmntent, 1);
    ftio_readahead_dropped(fp);
    return real_endmntent(fp);
}

/* glibc's list of open streams (exported since 2.2.5; the lock is the one
 * fopen and fclose take). */
extern FILE *_IO_list_all;
extern void _IO_list_lock(void);
extern void _IO_list_unlock(void);

static int64_t open_streams_unconsumed(void)
{
    int64_t sum = 0;
    _IO_list_lock();
    for (FILE *fp = _IO_list_all; fp; fp = fp->_chain)
        if (readahead_stream(fp))
            sum += unconsumed(fp);
    _IO_list_unlock();
    return sum;
}

/* ---- the image's start, a fork, the end ------------------------------- */

void ftio_libc_reads_init(void)
{
    loader_start();
}

void ftio_libc_reads_after_fork_child(void)
{
    /* The child's kernel counts start at 0: what the parent's streams hold
     * was read by the parent (whatever the child consumes of it is read
     * from the buffer: less than the kernel gave it). */
    atomic_store(&lr.files, 0);
    atomic_store(&lr.loader, 0);
    atomic_store(&lr.own, 0);
    atomic_store(&lr.readahead, -open_streams_unconsumed());
    /* The parent counted the objects it loaded, or will: each one present
     * is noted, on the loader's public list (not dl_iterate_phdr: its lock
     * may have been held by another of the parent's threads). */
    pthread_mutex_init(&ld.mu, NULL);
    size_t i = 0;
    for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
        if (i++ < ld_start.initial)
            continue;
        struct loaded *e = find(ld_slot[ld.cur], object_key(m->l_addr, m->l_name));
        if (!e->key && ld.n < LOADED_SLOTS / 2) {
            e->key = object_key(m->l_addr, m->l_name);
            e->gen = ld.gen;
            ld.n++;
        }
    }
}

void ftio_libc_reads_final(struct ftio_libc_reads *out)
{
    loader_look(LOOK_COUNT);
    int64_t ra = atomic_load(&lr.readahead) + open_streams_unconsumed();
    out->files = atomic_load(&lr.files);
    out->loader = atomic_load(&lr.loader);
    out->readahead = ra > 0 ? (uint64_t)ra : 0;
    out->own = atomic_load(&lr.own);
    out->missed_objects = ld.full;
}
