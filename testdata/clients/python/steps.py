"""What the ORM programs share: steps that report themselves, and checks.

Each program runs its steps in order, printing "ok" or "FAIL" and the reason
for each, and exits non-zero if any failed (see internal/clienttest/doc.go).
"""
import sys
import traceback

_failed = []


def step(name, after_failure=None):
    """Runs the decorated function as a step, at once. after_failure, if
    given, runs after a failed step (a rollback) so that the next step starts
    clean."""
    def run(fn):
        try:
            fn()
            print("ok  ", name, flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            _failed.append(name)
            print("FAIL", name + ":", type(e).__name__, e, flush=True)
            traceback.print_exc(limit=-3)
            if after_failure is not None:
                after_failure()
        return fn
    return run


def eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def raises(exc_type, fn, what):
    """Calls fn and returns the exception of exc_type it raises, or fails."""
    try:
        fn()
    except exc_type as e:
        return e
    raise AssertionError("%s: no %s raised" % (what, exc_type.__name__))


def sqlstate(exc):
    """The SQLSTATE of a driver error wrapped by an ORM (its .orig or
    __cause__), as psycopg2 reports it."""
    for e in (getattr(exc, "orig", None), exc.__cause__, exc):
        if getattr(e, "pgcode", None):
            return e.pgcode
    return None


def finish():
    if _failed:
        print("%d step(s) failed: %s" % (len(_failed), ", ".join(_failed)), flush=True)
        sys.exit(1)
    sys.exit(0)
