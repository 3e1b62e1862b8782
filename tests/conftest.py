import json
import os
from contextlib import ExitStack, contextmanager

from hypothesis import HealthCheck, settings

# "ci" runs more examples; "dev" keeps the inner loop quick. CI sets nothing: ci is the default.
settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Browser tests drive the Debian chromium (scripts/test installs it). Playwright's own
# browser download does not work on these machines, so point it at /usr/bin/chromium.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


# -- one tab per worker --------------------------------------------------------------------
# A new browser context per test costs a new renderer process: loading the served app in a
# fresh context took 3.5-4.3 s of CPU against 2.4-2.6 s in a tab that navigates on, and
# the page 2.6 against 1.5 s (tests' browser loads are most of the suite). So `page` is one
# tab that each test finds on about:blank at the default viewport, with nothing of the last
# test left on it: its listeners and routes are removed, the mouse is back in the corner
# (where it hovers nothing), and after a failure the tab and its context are replaced.
# Navigating gives each test a new document (fresh JavaScript state); pipeviz keeps
# nothing in cookies or storage. A test that needs touch or another device asks
# `device_page`, which keeps one such tab per kind of context in the same way.


class _Tab:
    """A reused tab of one kind of context (the default, or a device's)."""

    def __init__(self, browser, args: dict):
        self.browser, self.args = browser, args
        self.context = self.page = None

    def get(self):
        if self.page is None or self.page.is_closed():
            self.close()
            self.context = self.browser.new_context(**self.args)
            self.page = self.context.new_page()
            self.viewport = self.page.viewport_size
        return self.page

    def close(self):
        if self.context is not None:
            try:
                self.context.close()
            except Exception:  # noqa: BLE001  (a context whose browser is gone)
                pass
        self.context = self.page = None

    @contextmanager
    def lent(self, request, viewport: dict | None = None):
        """The tab for one test, as if new; after it, reset or (after a failure) replaced."""
        tab = self.get()
        tab.set_viewport_size(viewport or self.viewport)
        tab.mouse.move(0, 0)
        added = []

        def on(event, handler):  # remembered, to be removed after the test
            added.append((event, handler))
            type(tab).on(tab, event, handler)

        tab.on = on
        try:
            yield tab
        finally:
            del tab.on
            if getattr(request.node, "pv_failed", False) or tab.is_closed():
                self.close()  # whatever the failure left on it goes with it
            else:
                try:
                    for event, handler in added:
                        tab.remove_listener(event, handler)
                    tab.unroute_all(behavior="ignoreErrors")
                    tab.goto("about:blank")
                except Exception:  # noqa: BLE001  (a tab that cannot be reset is replaced)
                    self.close()


@pytest.fixture(scope="session")
def _tabs(browser, browser_context_args):
    """One _Tab per kind of context (its arguments but the viewport), made when first asked for."""
    tabs: dict[str, _Tab] = {}

    def tab(**args) -> _Tab:
        key = json.dumps(args, sort_keys=True)
        if key not in tabs:
            tabs[key] = _Tab(browser, {**browser_context_args, **args})
        return tabs[key]

    yield tab
    for t in tabs.values():
        t.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        item.pv_failed = True
    return report


@pytest.fixture
def page(_tabs, request):
    with _tabs().lent(request) as tab:
        yield tab


@pytest.fixture
def device_page(_tabs, request):
    """device_page(viewport={...}, is_mobile=True, has_touch=True, ...): a reused tab of a
    context with those arguments (a phone's), at that viewport, for this test."""
    with ExitStack() as stack:
        yield lambda viewport, **args: stack.enter_context(_tabs(**args).lent(request, viewport))


def pytest_collection_modifyitems(items):
    """Within each file, every test of the served app before any of the page: a tab
    that stays on one explorer reuses its renderer (0.5 s of CPU a load fewer than
    switching between the server and the file). Files stay whole for --dist loadfile."""
    where = {}
    for i, item in enumerate(items):
        where.setdefault(item.fspath, i)

    def key(pair):
        i, item = pair
        params = getattr(getattr(item, "callspec", None), "params", {})
        return where[item.fspath], 1 if "page" in params.values() else 0, i

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]
