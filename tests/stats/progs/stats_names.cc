/*
 * stats_names.cc - a contended mutex first used in a namespaced C++
 * member function, for the readable names of the statistics (tests/stats
 * and tests/cli): the site must print as shop::cart::Basket::add(...),
 * not as its mangled name, and `lockswap report` must give its file:line
 * (this program is built with -g).
 *
 *   stats_names THREADS ROUNDS [STRIPPED.so]
 *
 * With STRIPPED.so (tests/stats/progs/names/stripped.c, installed stripped)
 * its stripped_contend is called too: its static function's site must
 * print as unknown, with its offset, never as stripped_contend.
 * First, one contended wait made certain (not left to the scheduler): a
 * holder keeps the mutex until a waiter thread sleeps in its lock call
 * (its /proc state is S), so the profile always has a contention event
 * at this site.  Prints "items N" (THREADS * ROUNDS * 3 + 6).
 */
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "../../thread_state.h"

// A waiter that publishes its tid, then blocks in the lock.
struct Handshake {
	std::atomic<bool> held{false};
	std::atomic<long> waiter_tid{0};
};

namespace shop {
namespace cart {

struct Basket {
	std::mutex guard;
	long items = 0;
	void add(long n, Handshake *h = nullptr);
};

__attribute__((noinline)) void Basket::add(long n, Handshake *h)
{
	std::lock_guard<std::mutex> hold(guard); // the site of the test
	for (volatile int spin = 0; spin < 100; spin = spin + 1)
		;
	if (h) { // hold it until the waiter sleeps in its lock call (2 s at most)
		h->held = true;
		auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
		while (std::chrono::steady_clock::now() < end &&
		       !(h->waiter_tid && thread_state((pid_t)h->waiter_tid) == 'S'))
			std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	items += n;
}

} // namespace cart
} // namespace shop

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: stats_names THREADS ROUNDS [STRIPPED.so]\n");
		return 2;
	}
	int threads = std::atoi(argv[1]);
	long rounds = std::atol(argv[2]);
	shop::cart::Basket basket;
	Handshake h;
	std::thread holder([&] { basket.add(3, &h); });
	std::thread waiter([&] {
		while (!h.held)
			std::this_thread::yield();
		h.waiter_tid = (long)syscall(SYS_gettid);
		basket.add(3);
	});
	holder.join();
	waiter.join();
	std::vector<std::thread> pool;
	for (int i = 0; i < threads; i++)
		pool.emplace_back([&] {
			for (long r = 0; r < rounds; r++)
				basket.add(3);
		});
	for (auto &t : pool)
		t.join();
	if (argc > 3) {
		void *lib = dlopen(argv[3], RTLD_NOW);
		auto contend = lib ? (void (*)(int, long))dlsym(lib, "stripped_contend") : nullptr;
		if (!contend) {
			std::fprintf(stderr, "stats_names: %s\n", dlerror());
			return 1;
		}
		contend(threads, rounds);
	}
	std::printf("items %ld\n", basket.items);
	return basket.items == 3L * threads * rounds + 6 ? 0 : 1;
}
