"""The palette stays legible for colour-blind readers and its labels stay readable,
computed from the palette itself: colours are simulated under protan, deutan and
tritan vision (Machado, Oliveira and Fernandes 2009, full severity, on linear sRGB)
and compared as CIELAB distances (ΔE*76; about 2 is just noticeable, 10 clear)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pipeviz.view.palette import (
    BUBBLE_HATCH,
    KIND_COLORS,
    MAX_CHUNKS,
    W_ONLY_COLOR,
    chunk_palette,
    contrast,
    label_color,
)

VISION = {
    "normal": np.eye(3),
    "protan": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                        [-0.003882, -0.048116, 1.051998]]),
    "deutan": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                        [-0.011820, 0.042940, 0.968881]]),
    "tritan": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                        [0.004733, 0.691367, 0.303900]]),
}


def _linear(c):
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(color: str, vision: str) -> np.ndarray:
    rgb = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    lin = np.clip(VISION[vision] @ _linear(rgb), 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta(a: str, b: str, vision: str) -> float:
    return float(np.linalg.norm(lab(a, vision) - lab(b, vision)))


def kind_shades(chunks: int) -> list[list[str]]:
    pal = chunk_palette(chunks)
    return [pal[k * MAX_CHUNKS : k * MAX_CHUNKS + chunks] for k in range(len(KIND_COLORS))]


def test_the_simulation_reproduces_a_known_confusion():
    """Guard for the check itself: red and green collapse under deutan vision."""
    assert delta("#cc0000", "#00aa00", "normal") > 80
    assert delta("#cc0000", "#00aa00", "deutan") < delta("#cc0000", "#00aa00", "normal") / 2


@pytest.mark.parametrize("vision", list(VISION))
@pytest.mark.parametrize("chunks", range(1, MAX_CHUNKS + 1))
def test_kinds_stay_apart_at_every_chunk(vision, chunks):
    shades = kind_shades(chunks)
    for c in range(chunks):
        for a, b in itertools.combinations(range(len(shades)), 2):
            assert delta(shades[a][c], shades[b][c], vision) >= 15, (vision, chunks, c, a, b)


@pytest.mark.parametrize("vision", list(VISION))
@pytest.mark.parametrize("chunks", [1, 2])
def test_every_colour_of_a_kind_stays_apart_from_every_other_kind(vision, chunks):
    """V = 1 (1F1B, ZB-H1/H2) and two chunks (interleaved V=2, ZB-V, DualPipe-V)."""
    shades = kind_shades(chunks)
    for a, b in itertools.combinations(range(len(shades)), 2):
        for x in shades[a]:
            for y in shades[b]:
                assert delta(x, y, vision) >= 15, (vision, chunks, x, y)


@pytest.mark.parametrize("vision", list(VISION))
@pytest.mark.parametrize("chunks", [2, 3, 4])
def test_neighbouring_chunks_of_a_kind_stay_apart(vision, chunks):
    for shades in kind_shades(chunks):
        for x, y in zip(shades, shades[1:]):
            assert delta(x, y, vision) >= 8, (vision, chunks, x, y)


@pytest.mark.parametrize("chunks", range(1, MAX_CHUNKS + 1))
def test_labels_contrast_at_least_4_5(chunks):
    for color in chunk_palette(chunks):
        assert contrast(color, label_color(color)) >= 4.5, color


@pytest.mark.parametrize("vision", list(VISION))
def test_bars_and_hatch_stay_apart(vision):
    """The in-flight bars: awaiting B (F's blue) beside awaiting W only; the hatch on white."""
    assert delta(KIND_COLORS[0], W_ONLY_COLOR, vision) >= 30
    assert delta(BUBBLE_HATCH, "#ffffff", vision) >= 30
