/* LD_PRELOAD shim for scripts/bench: every fsync and fdatasync of the process takes
 * WATER_SLOW_SYNC_US microseconds longer (default 3000), after the real call: what a flush costs
 * on a Raspberry Pi's SD card. The benchmark loads it into water-server and redis-server alike.
 * For the tests, a card that fails: while the file WATER_FAIL_SYNC_FILE names exists, each sync
 * fails with EIO (after its delay), as a dying card's would; with WATER_FAIL_SYNC_ONCE set, the
 * first sync that fails removes the file, so exactly one fails (a test then knows that the group
 * after it is synced). With WATER_SYNC_BEGUN_FILE, a sync that starts while the fail file exists
 * first makes that file: a test waits for it, not for a guessed time, to know the failing sync
 * has begun and what it sends next goes into a later group. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long delay_us = 3000;
static const char *fail_file = NULL;
static int fail_once = 0;
static const char *begun_file = NULL;

__attribute__((constructor)) static void read_delay(void) {
    const char *text = getenv("WATER_SLOW_SYNC_US");
    if (text) delay_us = atol(text);
    fail_file = getenv("WATER_FAIL_SYNC_FILE");
    fail_once = getenv("WATER_FAIL_SYNC_ONCE") != NULL;
    begun_file = getenv("WATER_SYNC_BEGUN_FILE");
}

/* Says that a sync which is going to fail has begun (see above). */
static void mark_begun(void) {
    if (!begun_file || !fail_file || access(fail_file, F_OK) != 0) return;
    int fd = open(begun_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
}

/* The call's result, or -1 with EIO while the fail file exists. */
static int outcome(long result) {
    int error = errno;
    if (fail_file && access(fail_file, F_OK) == 0) {
        if (fail_once) unlink(fail_file);
        errno = EIO;
        return -1;
    }
    errno = error;
    return (int)result;
}

static void wait_for_the_card(void) {
    struct timespec pause = {delay_us / 1000000, (delay_us % 1000000) * 1000};
    while (nanosleep(&pause, &pause) != 0) {}
}

int fsync(int fd) {
    mark_begun();
    long result = syscall(SYS_fsync, fd);
    wait_for_the_card();
    return outcome(result);
}

int fdatasync(int fd) {
    mark_begun();
    long result = syscall(SYS_fdatasync, fd);
    wait_for_the_card();
    return outcome(result);
}
