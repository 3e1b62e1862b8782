/* The puzzle's block in the browser, for both explorers (pipeviz/view/puzzle.py
 * builds its HTML, static/puzzle_view.js on the page). Written once: the page mounts
 * it in its own block, the served app inside a Panel component (served/puzzle.py).
 *
 *   mount(el, act)     a board in element `el`; `act(action)` sends each click, key
 *                      and menu choice on ({what: 'place', move, rank}, {what:
 *                      'undo'}, {what: 'set', field, value}, ...)
 *   board.show(html, live)
 *                      the block's new HTML, and what its live region says
 *
 * A new HTML replaces only the parts of the block that changed, so the live region
 * (role=status) stays one element that screen readers follow, and a part that did
 * not change keeps its focus and what was typed into it. The ops are one roving tab
 * stop: arrows move between ranks (up, down) and ops (left, right), F B I W E move to
 * the rank's next op of that kind, Enter or Space places it, U undo, R redo, H hint
 * (Ctrl+Z, Ctrl+Y and Ctrl+Shift+Z too). Focus stays on the same rank's same kind of
 * op when the board is drawn again.
 */
(function (root) {
  'use strict';

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  // The keys that move to a kind of op: its name's first letter (E: the encoder's EF and EB).
  var KIND_KEYS = 'fbiwe';
  var TOOLS = { u: 'undo', r: 'redo', h: 'hint' };

  function Board(el, act) {
    this.el = el;
    this.act = act;
    this.html = null;
    this.parts = [];
    this.live = '';
    this.rank = 0; // the rank the reader is on
    this.current = null; // the op that holds the tab stop (its data-key)
    this.typed = false; // an op was typed and sent: clear the box when the board changes
    var self = this;
    el.addEventListener('click', function (e) { self.onClick(e); });
    el.addEventListener('keydown', function (e) { self.onKey(e); });
    el.addEventListener('change', function (e) { self.onChange(e); });
    el.addEventListener('submit', function (e) { self.onSubmit(e); });
    el.addEventListener('focusin', function (e) { self.onFocus(e.target); });
  }

  Board.prototype.active = function () {
    var r = this.el.getRootNode ? this.el.getRootNode() : root.document;
    return (r.activeElement !== undefined ? r : root.document).activeElement;
  };

  Board.prototype.find = function (selector) { return this.el.querySelector(selector); };

  Board.prototype.show = function (html, live) {
    if (html !== this.html) this.render(html);
    var region = this.find('.pv-pz-live');
    if (region && region.textContent !== live) region.textContent = live;
    this.live = live;
  };

  // Replace the section's children that changed (by their HTML as last rendered).
  Board.prototype.render = function (html) {
    var focused = this.active(), inside = focused && this.el.contains(focused);
    var key = inside ? focused.getAttribute('data-key') : null;
    var tpl = root.document.createElement('template');
    tpl.innerHTML = html;
    var fresh = tpl.content.firstElementChild, section = this.el.firstElementChild;
    var kids = fresh ? Array.from(fresh.children) : [], parts = kids.map(function (k) { return k.outerHTML; });
    if (!section || !fresh || section.className !== fresh.className || parts.length !== this.parts.length) {
      this.el.textContent = '';
      if (fresh) this.el.appendChild(fresh);
    } else {
      var old = Array.from(section.children);
      for (var i = 0; i < kids.length; i++) if (parts[i] !== this.parts[i]) section.replaceChild(kids[i], old[i]);
    }
    if (this.typed && html !== this.html) {
      var box = this.find('input[data-field="typed"]');
      if (box) box.value = '';
    }
    this.typed = false;
    this.html = html;
    this.parts = parts;
    this.rove(inside && key !== null ? key : null);
  };

  // One tab stop among the ops: the current one, else the rank's first, else the first.
  Board.prototype.rove = function (refocus) {
    var ops = Array.from(this.el.querySelectorAll('.pv-pz-op'));
    var keep = this.current !== null ? this.find('[data-key="' + this.current + '"]') : null;
    if (keep === null) keep = this.find('.pv-pz-rank[data-rank="' + this.rank + '"] .pv-pz-op') || ops[0] || null;
    ops.forEach(function (b) { b.tabIndex = b === keep ? 0 : -1; });
    if (keep !== null) this.current = keep.getAttribute('data-key');
    if (refocus === null) return;
    var target = this.find('[data-key="' + refocus + '"]');
    if (target === null && refocus.indexOf('op:') === 0) {
      target = keep && Number(keep.getAttribute('data-rank')) === this.rank ? keep : this.find('.pv-pz-rank[data-rank="' + this.rank + '"]');
    }
    if (target !== null) target.focus();
  };

  Board.prototype.onFocus = function (t) {
    var rank = t.getAttribute && t.getAttribute('data-rank');
    if (rank !== null && rank !== undefined) this.rank = Number(rank);
    if (t.classList && t.classList.contains('pv-pz-op')) {
      this.current = t.getAttribute('data-key');
      Array.from(this.el.querySelectorAll('.pv-pz-op')).forEach(function (b) { b.tabIndex = b === t ? 0 : -1; });
    }
  };

  Board.prototype.onClick = function (e) {
    var b = e.target.closest ? e.target.closest('[data-act]') : null;
    if (!b || !this.el.contains(b) || b.tagName === 'FORM') return;
    var what = b.getAttribute('data-act');
    if (what === 'place') {
      this.onFocus(b);
      this.act({ what: 'place', move: b.getAttribute('data-move'), rank: Number(b.getAttribute('data-rank')) });
    } else {
      this.act({ what: what });
    }
  };

  Board.prototype.onChange = function (e) {
    var field = e.target.getAttribute && e.target.getAttribute('data-field');
    if (field && field !== 'typed') this.act({ what: 'set', field: field, value: e.target.value });
  };

  Board.prototype.onSubmit = function (e) {
    e.preventDefault();
    var box = this.find('input[data-field="typed"]');
    if (!box || !box.value.trim()) return;
    this.typed = true;
    this.act({ what: 'place', move: box.value.trim().toUpperCase(), rank: this.rank });
  };

  // The ops of rank r, in the board's order.
  Board.prototype.opsOf = function (r) {
    return Array.from(this.el.querySelectorAll('.pv-pz-rank[data-rank="' + r + '"] .pv-pz-op'));
  };

  Board.prototype.onKey = function (e) {
    var t = e.target, tag = t.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.altKey) return;
    var key = e.key.length === 1 ? e.key.toLowerCase() : e.key, mod = e.ctrlKey || e.metaKey;
    if (mod && key === 'z') return this.tool(e, e.shiftKey ? 'redo' : 'undo');
    if (mod && key === 'y') return this.tool(e, 'redo');
    if (mod) return;
    if (TOOLS[key] !== undefined) return this.tool(e, TOOLS[key]);
    var board = t.closest ? t.closest('.pv-pz-board') : null;
    if (!board) return;
    var rows = Array.from(board.querySelectorAll('.pv-pz-rank')), here = this.opsOf(this.rank);
    var at = here.indexOf(t), target = null;
    if (key === 'ArrowDown' || key === 'ArrowUp') {
      var r = Math.min(Math.max(this.rank + (key === 'ArrowDown' ? 1 : -1), 0), rows.length - 1), there = this.opsOf(r);
      target = there.length ? there[Math.min(Math.max(at, 0), there.length - 1)] : rows[r];
    } else if (key === 'ArrowLeft' || key === 'ArrowRight') {
      if (here.length) target = here[(Math.max(at, 0) + (key === 'ArrowRight' ? 1 : here.length - 1)) % here.length];
    } else if (key === 'Home' || key === 'End') {
      target = here.length ? here[key === 'Home' ? 0 : here.length - 1] : null;
    } else if (key.length === 1 && KIND_KEYS.indexOf(key) >= 0) {
      for (var k = 1; k <= here.length && target === null; k++) {
        var b = here[(Math.max(at, -1) + k + here.length) % here.length];
        if ((b.getAttribute('data-kind') || '').charAt(0) === key.toUpperCase()) target = b;
      }
    } else {
      return;
    }
    e.preventDefault();
    if (target) target.focus();
  };

  Board.prototype.tool = function (e, what) {
    e.preventDefault();
    this.act({ what: what });
  };

  X.puzzleBoard = { mount: function (el, act) { return new Board(el, act); }, Board: Board };
})(typeof window !== 'undefined' ? window : globalThis);
