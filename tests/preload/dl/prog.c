/*
 * prog.c - mutexes shared between the executable, a linked shared library
 * (libuser.so) and a dlopen()ed one (libplugin.so) are served by one
 * implementation: a mutex locked in one object is seen locked by the others
 * and contended increments from all three keep mutual exclusion.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "../check.h"

long user_locked_increment(pthread_mutex_t *m);
int user_trylock(pthread_mutex_t *m);

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static int (*plugin_lock)(pthread_mutex_t *), (*plugin_unlock)(pthread_mutex_t *);
static long mixed_counter;

static void *mixed(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		switch (i % 3) {
		case 0: pthread_mutex_lock(&shared); mixed_counter++; pthread_mutex_unlock(&shared); break;
		case 1: plugin_lock(&shared); mixed_counter++; plugin_unlock(&shared); break;
		default: while (user_trylock(&shared)) ; mixed_counter++; pthread_mutex_unlock(&shared);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	printf("# dl under backend %s\n", check_backend());
	void *h = dlopen(argc > 1 ? argv[1] : "libplugin.so", RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen libplugin.so");
	if (!h) {
		printf("# %s\n", dlerror());
		return check_finish();
	}
	plugin_lock = (int (*)(pthread_mutex_t *))dlsym(h, "plugin_lock");
	plugin_unlock = (int (*)(pthread_mutex_t *))dlsym(h, "plugin_unlock");
	CHECK_ERR(plugin_lock(&shared), 0, "plugin locks the executable's mutex");
	CHECK_ERR(user_trylock(&shared), EBUSY, "linked library sees it locked");
	CHECK_ERR(pthread_mutex_trylock(&shared), EBUSY, "executable sees it locked");
	CHECK_ERR(pthread_mutex_unlock(&shared), 0, "executable unlocks it");
	CHECK_ERR(user_trylock(&shared), 0, "linked library takes it");
	CHECK_ERR(plugin_unlock(&shared), 0, "plugin unlocks it");
	CHECK_EQ(user_locked_increment(NULL), 1, "library's own static mutex works");
	pthread_t t[6];
	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, mixed, NULL);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(mixed_counter, 6 * 20000L, "mutual exclusion across executable, library and plugin");
	return check_finish();
}
