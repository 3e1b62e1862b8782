/* Bokeh's repaint, without the work that changes nothing (both explorers load this
 * file; it twins nothing). Each keypress replaces some sources' data and repaints
 * their plots, and Bokeh then redoes, every time, work whose result is the same:
 *
 *   styles     it rewrites every renderer's position stylesheet on every repaint,
 *              changed or not, and each write re-parses it and restyles its view:
 *              a stylesheet is written only when its text changes
 *   widths     it measures every label and tick label again with measureText
 *              (20 us a call here), though the texts are the same few numbers in
 *              the same font: a width is measured once per font and text, and
 *              measured again once fonts finish loading (Bokeh caches a font's
 *              metrics the same way, only once the font is there)
 *   hatches    it draws the bubbles' hatch pattern on a new canvas whenever their
 *              data change, though the pattern, colour, alpha, scale and weight
 *              are constants: the pattern is made again only when one of them,
 *              or the screen's pixel ratio, changes
 *
 * Measured at the defaults on the page: the widths and the hatches together took
 * keypress to repaint from about 31 to 28 ms (benchmarks/page.py). install() applies
 * each once per page and returns the names of those applied; one whose Bokeh
 * internals are not there (another Bokeh version) is left out, and
 * tests/test_browser_glance.py fails so that it is noticed (Bokeh is pinned).
 */
(function (root) {
  'use strict';

  function module(name) {
    try { return root.Bokeh && root.Bokeh.require ? root.Bokeh.require(name) : null; } catch (e) { return null; }
  }

  function styles() {
    var dom = module('core/dom'), proto = dom && dom.InlineStyleSheet && dom.InlineStyleSheet.prototype;
    if (!proto || typeof proto._update !== 'function') return false;
    if (proto._update.pvQuiet) return true;
    var update = proto._update;
    proto._update = function (css) { if (!this.el || this.el.textContent !== css) update.call(this, css); };
    proto._update.pvQuiet = true;
    return true;
  }

  function widths() {
    var graphics = module('core/graphics'), fonts = root.document && root.document.fonts;
    if (!graphics || typeof graphics.text_width !== 'function' || !fonts) return false;
    if (graphics.text_width.pvMemo) return true;
    var measure = graphics.text_width, known = new Map(), loaded = new Map();
    var memo = function (text, font) {
      var ready = loaded.get(font);
      if (ready === undefined) {
        ready = fonts.check(font);
        if (ready) loaded.set(font, true);
      }
      if (!ready) return measure(text, font);
      var key = font + '\n' + text, width = known.get(key);
      if (width === undefined) {
        if (known.size >= 20000) known.clear();
        width = measure(text, font);
        known.set(key, width);
      }
      return width;
    };
    memo.pvMemo = true;
    graphics.text_width = memo; // Bokeh's modules call it through their exports, so all take this one
    fonts.addEventListener('loadingdone', function () { known.clear(); loaded.clear(); });
    return true;
  }

  function hatches() {
    var hatch = module('core/visuals/hatch'), uniforms = module('core/uniforms');
    var proto = hatch && hatch.HatchVector && hatch.HatchVector.prototype;
    if (!proto || typeof proto.update !== 'function' || !uniforms || !uniforms.UniformScalar) return false;
    if (proto.update.pvMemo) return true;
    var update = proto.update;
    var memo = function () {
      var constant = this.hatch_color.is_Scalar() && this.hatch_alpha.is_Scalar() && this.hatch_scale.is_Scalar() &&
        this.hatch_pattern.is_Scalar() && this.hatch_weight.is_Scalar();
      var key = constant ? [this.hatch_pattern.value, this.hatch_color.value, this.hatch_alpha.value,
        this.hatch_scale.value, this.hatch_weight.value, JSON.stringify(this.hatch_extra.value),
        root.devicePixelRatio].join('|') : null;
      var was = this.pvHatch;
      if (key !== null && was && was.key === key && was.image !== null) {
        // What update() does for constant hatching, with the pattern it made last time.
        this._update_iteration++;
        this._static_doit = this._compute_static_doit();
        this._hatch_image = new uniforms.UniformScalar(this._static_doit ? was.image : null, this.hatch_color.length);
        return;
      }
      update.call(this);
      var image = this._hatch_image;
      this.pvHatch = key === null ? null : { key: key, image: image && image.is_Scalar() ? image.value : null };
    };
    memo.pvMemo = true;
    proto.update = memo;
    return true;
  }

  var PATCHES = { styles: styles, widths: widths, hatches: hatches };

  function install() {
    return Object.keys(PATCHES).filter(function (name) { return PATCHES[name](); });
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.paint = { install: install, PATCHES: Object.keys(PATCHES) };
})(typeof window !== 'undefined' ? window : globalThis);
