// cxx.cc - the lock-order check on C++'s own locks (issue 46): `cxx guard`
// nests std::lock_guard over two std::mutex in both orders, one thread
// after the other (a potential deadlock, to be reported naming guard_ab
// and guard_ba, not the library's wrappers); `cxx scoped` takes both with
// std::scoped_lock, in both orders, from two threads at once (std::lock's
// try-and-back-off cannot deadlock: no report); `cxx shared` nests a
// std::shared_mutex read lock and a std::mutex both ways (reported).
// Built at -O0 and -O2 (mk/deadlock.mk); tests/deadlock/run.sh reads stderr.
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include "../preload/check.h"

#define NOINLINE __attribute__((noinline))

static std::mutex guard_a, guard_b;

NOINLINE static void guard_ab()
{
	std::lock_guard<std::mutex> a(guard_a);
	std::lock_guard<std::mutex> b(guard_b);
}

NOINLINE static void guard_ba()
{
	std::lock_guard<std::mutex> b(guard_b);
	std::lock_guard<std::mutex> a(guard_a);
}

static std::mutex scoped_a, scoped_b;
static long scoped_count;

NOINLINE static void scoped_ab()
{
	for (int i = 0; i < 2000; i++) {
		std::scoped_lock both(scoped_a, scoped_b);
		scoped_count++;
	}
}

NOINLINE static void scoped_ba()
{
	for (int i = 0; i < 2000; i++) {
		std::scoped_lock both(scoped_b, scoped_a);
		scoped_count++;
	}
}

static std::shared_mutex shared_s;
static std::mutex shared_m;

NOINLINE static void shared_read_then_lock()
{
	std::shared_lock<std::shared_mutex> r(shared_s);
	std::lock_guard<std::mutex> m(shared_m);
}

NOINLINE static void shared_lock_then_write()
{
	std::lock_guard<std::mutex> m(shared_m);
	std::unique_lock<std::shared_mutex> w(shared_s);
}

int main(int argc, char **argv)
{
	std::string c = argc > 1 ? argv[1] : "";
	if (c == "guard") {
		std::thread(guard_ab).join();
		std::thread(guard_ba).join();
	} else if (c == "scoped") {
		std::thread a(scoped_ab), b(scoped_ba);
		a.join();
		b.join();
		CHECK_EQ(scoped_count, 4000, "mutual exclusion under std::scoped_lock");
	} else if (c == "shared") {
		std::thread(shared_read_then_lock).join();
		std::thread(shared_lock_then_write).join();
	} else {
		fprintf(stderr, "cxx: unknown case '%s'\n", c.c_str());
		return 2;
	}
	CHECK(1, c.c_str());
	return check_finish();
}
