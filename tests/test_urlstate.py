from pipeviz.urlstate import encode, parse


def test_parses_a_view():
    assert parse("?schedule=interleaved&P=8&m=16&V=2") == (
        {"schedule": "interleaved", "P": 8, "m": 16, "V": 2}, []
    )
    assert parse("#schedule=zb-v&tf=18.5&comm=0.6")[0] == {"schedule": "zb-v", "tf": 18.5, "comm": 0.6}


def test_out_of_range_numbers_are_clamped_with_a_note():
    updates, notes = parse("?P=100&m=0&tf=-1")
    assert updates == {"P": 32, "m": 1, "tf": 0.01}
    assert notes == [
        "P=100 is outside 1..32; clamped to 32",
        "m=0 is outside 1..128; clamped to 1",
        "tf=-1 is outside 0.01..1000; clamped to 0.01",
    ]


def test_non_numbers_and_unknown_names_are_rejected_with_a_note():
    updates, notes = parse("?P=abc&V=2.5&comm=nan&schedule=__import__('os')&x=1")
    assert updates == {}
    assert "P='abc' is not a whole number in 1..32; ignored" in notes
    assert "V='2.5' is not a whole number in 1..8; ignored" in notes
    assert "comm='nan' is not a number in 0..1000; ignored" in notes
    assert any("is not a schedule; choose one of gpipe" in n for n in notes)
    assert any("unknown URL parameter 'x'" in n for n in notes)


def test_encode_round_trips():
    state = dict(schedule="zb-h1", P=8, m=24, V=1, tf=18.5, tb=18.1, tw=9.3, comm=0.6)
    query = encode(state)
    assert query == "?schedule=zb-h1&P=8&m=24&V=1&tf=18.5&tb=18.1&tw=9.3&comm=0.6"
    assert parse(query) == (state, [])
