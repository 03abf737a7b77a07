"""How `make test` shares the tests between its two pytest-xdist workers (`pytest -n 2 --dist loadgroup`): one
test at a time to whichever worker is free, except that every real-Asterisk test (tests/asterisk/) goes to one
worker, and every cluster test (tests/cluster/) to one worker, because each of those folders shares one stack for
the session (one Asterisk, one cluster) instead of starting one per worker.

The folder, not an `xdist_group` mark, decides: xdist 3.8 groups marked tests by appending the group to the test's
node id, which pytest 9.2 no longer lets a plugin change (the marked tests were spread over both workers)."""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

SHARED_STACK_FOLDERS = ("tests/asterisk/", "tests/cluster/")


class SharedStackScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with one scope per shared-stack folder and one per test elsewhere."""

    def _split_scope(self, nodeid: str) -> str:
        return next((folder for folder in SHARED_STACK_FOLDERS if nodeid.startswith(folder)), nodeid)
