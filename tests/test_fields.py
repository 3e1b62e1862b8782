"""The explorer's URL: read as names and numbers, never evaluated; clamped or ignored
with a note; the fragment wins over the query."""

from pipeviz.view.fields import FIELDS, PRESETS, defaults, encode, parse, with_base


def texts(notes):
    return [n.text() for n in notes]


def test_parses_a_view():
    assert parse("?schedule=interleaved&P=8&m=16&V=2") == ({"schedule": "interleaved", "P": 8, "m": 16, "V": 2}, [])
    assert parse("", "#schedule=zb-v&tf=18.5&comm=0.6")[0] == {"schedule": "zb-v", "tf": 18.5, "comm": 0.6}


def test_fragment_wins_over_query():
    assert parse("?schedule=1f1b&P=5", "#schedule=zb-h1")[0] == {"schedule": "zb-h1", "P": 5}


def test_out_of_range_numbers_are_clamped_with_a_note():
    updates, notes = parse("?P=100&m=0&tf=-1")
    assert updates == {"P": 32, "m": 1, "tf": 0.01}
    assert texts(notes) == [
        "URL: P=100 is outside 1..32; clamped to 32",
        "URL: m=0 is outside 1..128; clamped to 1",
        "URL: tf=-1 is outside 0.01..1000; clamped to 0.01",
    ]


def test_a_cost_that_may_be_zero_is_zero_or_at_least_the_engines_smallest():
    # The engine takes tw, comm and t_fb as 0 or from costs.COST_MIN (1e-06): a URL
    # value between opens the nearer valid view, never one the engine refuses.
    from pipeviz.view.state import config

    updates, notes = parse("?tw=5e-324&comm=7e-7&tfb=1e-6")
    assert updates == {"tw": 0.0, "comm": 1e-06, "tfb": 1e-06}
    assert texts(notes) == [
        "URL: tw=5e-324 is outside 0, 1e-06..1000; clamped to 0",
        "URL: comm=7e-7 is outside 0, 1e-06..1000; clamped to 1e-06",
    ]
    state = {**{k: f.default for k, f in FIELDS.items()}, **updates}
    assert config(state).costs.as_dict() == {"tf": 1.0, "tb": 1.0, "tw": 0.0, "comm": 1e-06, "tfb": 1e-06}


def test_non_numbers_and_unknown_names_are_ignored_with_a_note():
    updates, notes = parse("?P=abc&V=2.5&comm=nan&schedule=__import__('os')&x=1&P=²&m=①&tb=٣")
    assert updates == {}
    got = texts(notes)
    assert "URL: P='abc' is not a whole number in 1..32; ignored" in got
    assert "URL: V='2.5' is not a whole number in 1..8; ignored" in got
    assert "URL: comm='nan' is not a number in 0, 1e-06..1000; ignored" in got
    assert "URL: P='²' is not a whole number in 1..32; ignored" in got
    assert "URL: m='①' is not a whole number in 1..128; ignored" in got
    assert "URL: tb='٣' is not a number in 0.01..1000; ignored" in got
    assert any("schedule='__import__('os')' is not one of gpipe" in n for n in got)
    assert any("unknown parameter 'x'" in n for n in got)


def test_huge_values_are_refused_not_parsed():
    updates, notes = parse("?m=" + "9" * 4301)
    assert updates == {}
    assert "longer than 40 characters" in notes[0].text()


def test_preset_in_the_url_then_fields_override_it():
    updates, notes = parse("?preset=staircase&m=24")
    assert notes == []
    assert updates == {**PRESETS["staircase"].values, "m": 24}


def test_encode_round_trips():
    state = {k: f.default for k, f in FIELDS.items() if f.in_url}  # an order of one's own is not in the URL
    state.update(schedule="zb-h1", P=8, m=24, V=1, tf=18.5, tb=18.1, tw=9.3, comm=0.6)
    query = encode(state)
    assert query == "schedule=zb-h1&P=8&m=24&tf=18.5&tb=18.1&tw=9.3&comm=0.6"  # what differs from the defaults
    updates, notes = parse("?" + query)
    assert notes == [] and with_base(updates) == state


def test_a_permalink_names_what_differs_from_the_view_it_is_read_against():
    """A page built to open at zb-v reads its URL against that view: a permalink names
    what differs from it, and reading one back gives the whole state."""
    base = {**defaults(), "schedule": "zb-v", "V": 2}
    state = {**base, "schedule": "1f1b", "V": 1, "lang": "zh"}
    query = encode(state, base)
    assert query == "schedule=1f1b&V=1&lang=zh"
    updates, _ = parse("?" + query)
    assert with_base(updates, base) == {k: state[k] for k in with_base(updates, base)}
    assert encode(base, base) == "" and encode(defaults()) == ""


def test_tfb_is_a_url_cost_where_0_means_no_overlap_gain():
    from pipeviz.view.state import config

    assert parse("?schedule=dualpipe-v&tfb=2.5")[0] == {"schedule": "dualpipe-v", "tfb": 2.5}
    state = {**{k: f.default for k, f in FIELDS.items()}, "schedule": "dualpipe-v", "V": 2}
    assert config(state).costs.tfb is None and config(state).costs.fb == 3
    assert config({**state, "tfb": 2.5}).costs.fb == 2.5


def test_an_own_order_is_never_read_from_the_url():
    import pipeviz.view.own_order  # noqa: F401 (registers its fields)

    updates, notes = parse("?order=0F0&custom=1&placement=v")
    assert updates == {}
    assert [n.key for n in notes] == ["url.unknown"] * 3


def test_state_rules_for_an_own_order():
    from pipeviz.view.fields import FIELDS as ALL
    from pipeviz.view.state import normalize

    base = {k: f.default for k, f in ALL.items()}
    shown = {**base, "order": "0F0 7F0 7B0 0B0\n1F0 6F0 6B0 1B0\n2F0 5F0 5B0 2B0\n3F0 4F0 4B0 3B0",
             "placement": "v", "custom": True}
    state, notes = normalize(shown, {"order", "custom"})
    assert (state["P"], state["m"], state["V"], state["custom"]) == (4, 1, 2, True) and notes == []
    # The schedules' rules do not apply while the order shows (1f1b would take V back to 1).
    assert state["schedule"] == "1f1b"
    state, notes = normalize({**state, "m": 9}, {"m"})  # moving m goes back to the schedules
    assert state["custom"] is False and state["V"] == 1
    assert [n.key for n in notes] == ["rule.custom_off", "rule.v_set"]
    # A costs change keeps the order shown.
    assert normalize({**shown, "tf": 2.0}, {"tf"})[0]["custom"] is True
    # An order that does not read leaves P, m and V as they were.
    state, _ = normalize({**shown, "order": "0Q0"}, {"order"})
    assert (state["P"], state["m"], state["V"]) == (4, 8, 1)
