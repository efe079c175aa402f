# mk/leave.mk - tests/leave: the issue-10 matrix program (waiters that leave
# a queue, tolerated misuse), built against stock pthreads like the preload
# programs and never linked to lockswap.  Run by tests/leave/run.sh.
$(B)/leave/leave: tests/leave/leave.c tests/leave/queue.h tests/preload/check.h tests/deadline.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread -ldl

all: $(B)/leave/leave
