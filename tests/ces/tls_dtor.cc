// tls_dtor.cc - a thread whose start routine returns while it holds a
// mutex, inside a delegated section: its thread_local destructors run on
// its own thread, as under glibc (docs/delegation.md).  Run under futex
// and under ces.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

extern "C" {
#include "../preload/check.h"
}
#include "proc.h"

static pid_t raw_tid() { return (pid_t)syscall(SYS_gettid); }

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static std::atomic<pid_t> home_tid{0}, section_tid{0}, dtor_tid{0};

struct marker {
	bool used = false;
	~marker()
	{
		if (used)
			dtor_tid = raw_tid();
	}
};
static thread_local marker mark;

static void *waiter(void *)
{
	home_tid = raw_tid();
	pthread_mutex_lock(&m);
	section_tid = raw_tid();
	mark.used = true;
	return nullptr; // returns holding m, as a program may
}

int main()
{
	pthread_mutex_lock(&m);
	pthread_t t;
	pthread_create(&t, nullptr, waiter, nullptr);
	while (!home_tid)
		usleep(500);
	wait_sleeping(home_tid);
	pthread_mutex_unlock(&m);
	pthread_join(t, nullptr);
	CHECK_EQ(dtor_tid.load(), home_tid.load(),
	         "thread_local: the destructor of a thread that returned in a section ran on its own thread");
	CHECK(pthread_mutex_trylock(&m) == EBUSY, "thread_local: the mutex stays held by the exited thread");
	if (strcmp(check_backend(), "ces") == 0)
		CHECK(section_tid != home_tid, "thread_local: the section ran delegated");
	return check_finish();
}
