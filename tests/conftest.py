import os

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
# nothing in cookies or storage. Tests that need touch or another device make their own
# context, as before.


class _Tab:
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


@pytest.fixture(scope="session")
def _tab(browser, browser_context_args):
    tab = _Tab(browser, browser_context_args)
    yield tab
    tab.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        item.pv_failed = True
    return report


@pytest.fixture
def page(_tab, request):
    tab = _tab.get()
    tab.set_viewport_size(_tab.viewport)
    tab.mouse.move(0, 0)
    added = []

    def on(event, handler):  # remembered, to be removed after the test
        added.append((event, handler))
        type(tab).on(tab, event, handler)

    tab.on = on
    yield tab
    del tab.on
    if getattr(request.node, "pv_failed", False) or tab.is_closed():
        _tab.close()  # whatever the failure left on it goes with it
        return
    try:
        for event, handler in added:
            tab.remove_listener(event, handler)
        tab.unroute_all(behavior="ignoreErrors")
        tab.goto("about:blank")
    except Exception:  # noqa: BLE001  (a tab that cannot be reset is replaced)
        _tab.close()


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
