/* Accessible names for the explorers' controls (both explorers load this file; it
 * twins nothing).
 *
 * Bokeh draws a slider as a noUiSlider whose handle (role "slider") has no name, and
 * a group of radio buttons or toggle buttons as a bare <div>; its toggle buttons show
 * which one is active only by colour. apply(names) walks every Bokeh view and, for a
 * view whose model is named after a key of `names` (the page names its models after
 * their fields) or carries the CSS class "pv-a11y-<key>" (the served app's Panel
 * widgets), gives it that name:
 *   slider                 aria-label on the handle
 *   radio group            role radiogroup + aria-label
 *   toggle button group    role group + aria-label, aria-pressed on each button
 *   select, spinner        aria-label on the <select> or <input>
 *   HTML, Div              role status + aria-live polite + aria-label (the readout)
 * and every toggle button (named by its label) gets aria-pressed.
 * watch(names) applies now and again whenever the views' DOM changes (Panel rebuilds
 * the controls when the language changes), batched to one walk per frame. (Bokeh
 * rewrites its views' <style> elements on every repaint: static/compat.js stops the
 * rewrites that change nothing.)
 */
(function (root) {
  'use strict';

  var PREFIX = 'pv-a11y-';

  function keyOf(model, names) {
    if (model.name && Object.prototype.hasOwnProperty.call(names, model.name)) return model.name;
    var classes = model.css_classes || [];
    for (var i = 0; i < classes.length; i++) {
      var c = classes[i];
      if (typeof c === 'string' && c.indexOf(PREFIX) === 0) return c.slice(PREFIX.length);
    }
    return null;
  }

  function set(el, attr, value) {
    if (el && el.getAttribute(attr) !== value) el.setAttribute(attr, value);
  }

  function views() {
    var index = root.Bokeh && root.Bokeh.index;
    if (!index || typeof index.all_views !== 'function') return [];
    return Array.from(index.all_views());
  }

  function typeOf(model) {
    var t = model.type || '';
    return t.slice(t.lastIndexOf('.') + 1);
  }

  function nameView(view, name) {
    var shadow = view.shadow_el || view.el;
    if (!shadow) return;
    var type = typeOf(view.model);
    if (/Slider$/.test(type)) {
      var handles = shadow.querySelectorAll('.noUi-handle');
      for (var i = 0; i < handles.length; i++) set(handles[i], 'aria-label', name);
    } else if (type === 'RadioGroup' || type === 'CheckboxGroup') {
      var group = shadow.querySelector('.bk-input-group') || view.el;
      set(group, 'role', type === 'RadioGroup' ? 'radiogroup' : 'group');
      set(group, 'aria-label', name);
    } else if (/ButtonGroup$/.test(type)) {
      var box = shadow.querySelector('.bk-btn-group') || view.el;
      set(box, 'role', 'group');
      set(box, 'aria-label', name);
      var buttons = box.querySelectorAll('button');
      for (var j = 0; j < buttons.length; j++) {
        set(buttons[j], 'aria-pressed', buttons[j].classList.contains('bk-active') ? 'true' : 'false');
      }
    } else if (/(Select|Spinner|Input)$/.test(type)) {
      set(shadow.querySelector('select, input'), 'aria-label', name);
    } else if (/(HTML|Div|Markdown)$/.test(type)) {
      set(view.el, 'role', 'status');
      set(view.el, 'aria-live', 'polite');
      set(view.el, 'aria-label', name);
    }
  }

  // Name every view of a known key; return the shadow roots seen (to watch them).
  function apply(names) {
    var roots = [];
    views().forEach(function (view) {
      if (!view || !view.model) return;
      if (view.shadow_el) roots.push(view.shadow_el);
      if (typeOf(view.model) === 'Toggle') { // a toggle (the page's Costs) says whether it is on
        var button = (view.shadow_el || view.el).querySelector('button');
        set(button, 'aria-pressed', view.model.active ? 'true' : 'false');
      }
      var key = keyOf(view.model, names || {});
      if (key !== null && names[key]) nameView(view, names[key]);
    });
    return roots;
  }

  // Bokeh rewrites its views' <style> elements on every repaint, and the explorers write
  // their readouts and tables (elements with an id "pv-..."): neither adds a control.
  // Nor does a text change, or a slider's title showing its value.
  function isStyle(node) { return node.nodeName === 'STYLE' || node.nodeType === 3; }

  function matters(record) {
    if (record.type !== 'childList') return true;
    var target = record.target;
    if (isStyle(target)) return false;
    if (target.closest && target.closest('[id^="pv-"], .bk-slider-title')) return false;
    var nodes = Array.from(record.addedNodes).concat(Array.from(record.removedNodes));
    return !nodes.length || !nodes.every(isStyle);
  }

  function watch(getNames) {
    var pending = false, watched = new WeakSet();
    var observer = new MutationObserver(function (records) {
      if (pending || !records.some(matters)) return;
      pending = true;
      (root.requestAnimationFrame || root.setTimeout)(function () { pending = false; run(); });
    });
    function observe(node) {
      if (!node || watched.has(node)) return;
      watched.add(node);
      observer.observe(node, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
    }
    function run() { apply(getNames()).forEach(observe); }
    observe(root.document.body);
    run();
    return run;
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.a11y = { apply: apply, watch: watch, PREFIX: PREFIX };
})(typeof window !== 'undefined' ? window : globalThis);
