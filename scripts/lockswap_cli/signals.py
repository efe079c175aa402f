"""SIGTERM and SIGHUP end lockswap the way Ctrl-C does: the program being
measured is killed with its children, and lockswap exits 128 + the signal
(143 for SIGTERM), so timeout(1), CI runners and process managers never
leave a measured program behind.

Each measured program runs in its own session (campaign.execute), so it
does not get the terminal's signals itself; lockswap kills its process
group when it leaves, through the exception raised here.  The signals are
held while a program is being started, so none can arrive between the
fork and the moment lockswap knows the child's pid; the child unblocks
them before it execs.
"""
import contextlib
import signal

ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Terminated(BaseException):
    """lockswap got SIGTERM or SIGHUP (a BaseException, as KeyboardInterrupt
    is, so that no `except Exception` swallows it)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum
        self.status = 128 + signum

    @property
    def name(self):
        return signal.Signals(self.signum).name


def _raise(signum, frame):
    raise Terminated(signum)


def install():
    """SIGTERM and SIGHUP raise Terminated (SIGINT keeps raising
    KeyboardInterrupt); a signal ignored when lockswap started (nohup)
    stays ignored."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _raise)


@contextlib.contextmanager
def held():
    """Block the ending signals for the with-block; one that arrived
    meanwhile is delivered (and raises) as the block ends."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def unblock_in_child():
    """preexec_fn of a measured program: the mask held() set is inherited
    across fork and exec, and the program must get its signals."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING)
