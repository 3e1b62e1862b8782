"""The standalone page's Bokeh document, built without Bokeh's validation inside
file_html (pipeviz/page_document.py skips it for speed): validated here instead."""

from __future__ import annotations

from bokeh.core.validation.check import check_integrity
from bokeh.settings import settings

from pipeviz import page_document


def test_the_pages_document_has_no_validation_issue(monkeypatch):
    built = {}

    def keep(doc, **kwargs):
        built["doc"] = doc
        built["validation"] = settings.perform_document_validation()
        return "<html></html>"

    monkeypatch.setattr(page_document, "file_html", keep)
    page_document.template_html("zh")
    assert built["validation"] is False  # skipped in file_html ...
    assert settings.perform_document_validation() is True  # ... and only there
    issues = check_integrity([m for root in built["doc"].roots for m in root.references()])
    assert issues.error == [] and issues.warning == []
