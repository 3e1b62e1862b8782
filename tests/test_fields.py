"""The explorer's URL: read as names and numbers, never evaluated; clamped or ignored
with a note; the fragment wins over the query."""

from pipeviz.view.fields import FIELDS, PRESETS, encode, parse


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


def test_non_numbers_and_unknown_names_are_ignored_with_a_note():
    updates, notes = parse("?P=abc&V=2.5&comm=nan&schedule=__import__('os')&x=1&P=²&m=①&tb=٣")
    assert updates == {}
    got = texts(notes)
    assert "URL: P='abc' is not a whole number in 1..32; ignored" in got
    assert "URL: V='2.5' is not a whole number in 1..8; ignored" in got
    assert "URL: comm='nan' is not a number in 0..1000; ignored" in got
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
    state = {k: f.default for k, f in FIELDS.items()}
    state.update(schedule="zb-h1", P=8, m=24, V=1, tf=18.5, tb=18.1, tw=9.3, comm=0.6)
    query = encode(state)
    assert query.startswith("schedule=zb-h1&P=8&m=24&V=1&tf=18.5&tb=18.1&tw=9.3&comm=0.6")
    assert parse("?" + query) == (state, [])
