// The step-through page's script (micrograd2/viz/stepper.py writes the page): it steps through the
// frames, lays out and pans the graph, and swaps each frame's changes into its pass's picture.
// stepper.py puts it inline in the page; the playground loads it as a file (its page allows no
// inline script).  What it reads: the frames, the pictures, and the JSON of #stills.
(function () {
  var stills = JSON.parse(document.getElementById('stills').textContent);
  var MIN_TEXT_PX = stills.minTextPx, GAP = 24, SIDE_MIN = 520, PANE_MIN = 0.5;
  var frames = document.querySelectorAll('.frame');
  var position = document.getElementById('position');
  var prev = document.getElementById('prev'), next = document.getElementById('next');
  var current = 0, zoom = 1, whole = false;
  var BAR = (function () {  // a scroll bar's thickness
    var probe = document.createElement('div');
    probe.style.cssText = 'position: absolute; visibility: hidden; overflow: scroll; width: 60px';
    document.body.appendChild(probe);
    var thickness = probe.offsetWidth - probe.clientWidth;
    document.body.removeChild(probe);
    return thickness;
  })();

  function size(svg) {  // the picture's natural size in CSS pixels (Graphviz writes points) and smallest text
    if (!svg.dataset.w) {
      var smallest = svg.dataset.smallest ? parseFloat(svg.dataset.smallest) : Infinity;
      svg.querySelectorAll('text').forEach(function (t) {
        smallest = Math.min(smallest, parseFloat(t.getAttribute('font-size')) || 14);
      });
      var box = svg.viewBox.baseVal;
      svg.dataset.w = parseFloat(svg.getAttribute('width')) * 4 / 3;
      svg.dataset.h = parseFloat(svg.getAttribute('height')) * 4 / 3;
      svg.dataset.text = (smallest === Infinity ? 14 : smallest) * parseFloat(svg.dataset.w) / box.width;
    }
    return [parseFloat(svg.dataset.w), parseFloat(svg.dataset.h), parseFloat(svg.dataset.text)];
  }

  function largest() {  // the largest picture of all frames: every frame is laid out by it, alike
    var most = [0, 0, Infinity];
    document.querySelectorAll('.frame .graph svg, .passes svg').forEach(function (svg) {
      var s = size(svg);
      most = [Math.max(most[0], s[0]), Math.max(most[1], s[1]), Math.min(most[2], s[2])];
    });
    return most;
  }

  // Beside the narration if the largest frame's graph fits there with readable text, else above it, as
  // wide as the page; never smaller than MIN_TEXT_PX (then it pans: drag it, or use the scroll bars)
  // unless 'whole graph'.  One decision and one scale for all frames: nothing jumps between frames.
  function layout(f) {
    var pane = f.querySelector('.graph'), svg = pane && pane.querySelector('svg');
    if (!svg) { f.classList.add('stacked'); return; }
    var own = size(svg), s = largest(), w = s[0], h = s[1], readable = MIN_TEXT_PX / s[2];
    var width = f.clientWidth, besideScale = Math.min(1, (width - GAP - SIDE_MIN) / w), scale, beside;
    if (whole) {
      scale = Math.min((width - 2) / w, (window.innerHeight * 0.62 - 2) / h, 1);
      beside = false;
    } else {
      beside = besideScale >= readable && zoom <= 1;
      scale = (beside ? besideScale : Math.max(readable, Math.min(1, (width - 2) / w))) * zoom;
    }
    svg.style.width = (own[0] * scale) + 'px';
    svg.style.height = (own[1] * scale) + 'px';
    f.classList.toggle('stacked', !beside);
    pane.style.maxHeight = '';
    if (!beside && !whole) { roomBelow(f, pane); }
    holdPlace(f, pane, w * scale + 2, h * scale + 2);
  }

  // Stacked, the pane leaves room below it for the tallest legend and the tallest narration of
  // all frames, so that no frame's narration ends below the window (it pans instead); it keeps at
  // least PANE_MIN of the window's height, and at most its stylesheet's 62%.
  function roomBelow(f, pane) {
    var most = parseFloat(getComputedStyle(pane).maxHeight);
    var top = pane.getBoundingClientRect().top + window.scrollY;
    var bottom = parseFloat(getComputedStyle(document.body).marginBottom) || 0;
    var legend = f.querySelector('.legend');
    var below = GAP + tallestNarration(f) + bottom +
      (legend ? tallestLegend(f) + parseFloat(getComputedStyle(legend).marginBottom) : 0);
    var room = window.innerHeight - top - below;
    pane.style.maxHeight = Math.max(window.innerHeight * PANE_MIN, Math.min(most, room)) + 'px';
  }

  // The tallest narration of all frames, as it would be in frame f's side column; measured once
  // per width of that column, all at once (one layout).
  var narrations = {};
  function tallestNarration(f) {
    var side = f.querySelector('.side'), width = side.clientWidth;
    if (!(width in narrations)) {
      var probes = Array.prototype.map.call(document.querySelectorAll('.frame .narration'),
        function (n) {
          var probe = n.cloneNode(true);
          probe.style.cssText = 'position: absolute; visibility: hidden; box-sizing: border-box';
          probe.style.width = width + 'px';
          side.appendChild(probe);
          return probe;
        });
      narrations[width] = probes.reduce(function (most, probe) {
        return Math.max(most, probe.getBoundingClientRect().height);
      }, 0);
      probes.forEach(function (probe) { side.removeChild(probe); });
    }
    return narrations[width];
  }

  // The pane as large as the largest frame's (w by h, and its scroll bars), the legend as tall
  // as the tallest: the narration starts at the same place in every frame.
  function holdPlace(f, pane, w, h) {
    var most = parseFloat(getComputedStyle(pane).maxHeight), legend = f.querySelector('.legend');
    if (w > f.clientWidth) { h += BAR; }
    if (h > most) { w += BAR; }
    pane.style.minWidth = Math.min(w, f.clientWidth) + 'px';
    pane.style.minHeight = Math.min(h, most) + 'px';
    if (legend) { legend.style.minHeight = tallestLegend(f) + 'px'; }
  }

  // The tallest legend of all frames, as it would be in frame f's side column.  Its digits are all
  // as wide (tabular), so legends that differ only in their step number are measured once.
  function tallestLegend(f) {
    var side = f.querySelector('.side'), seen = {}, most = 0;
    document.querySelectorAll('.frame .legend').forEach(function (ul) {
      var key = ul.innerHTML.replace(/[0-9]/g, '0');
      if (seen[key]) { return; }
      seen[key] = true;
      var probe = ul.cloneNode(true);
      probe.style.cssText = 'position: absolute; visibility: hidden; min-height: 0';
      probe.style.width = side.clientWidth + 'px';
      side.appendChild(probe);
      most = Math.max(most, probe.getBoundingClientRect().height);
      side.removeChild(probe);
    });
    return most;
  }

  function focus(f) {  // scroll the visited node and the gradients it sends into view
    var pane = f.querySelector('.graph'), svg = pane && pane.querySelector('svg');
    if (!svg) { return; }
    var box = null;
    svg.querySelectorAll('g.node, g.edge').forEach(function (g) {
      var title = g.querySelector('title');
      var mine = g.classList.contains('node') ? title && title.textContent === f.dataset.current
                                              : g.querySelector('[stroke="red"]') !== null;
      if (!mine) { return; }
      var r = g.getBoundingClientRect();
      box = box ? {left: Math.min(box.left, r.left), top: Math.min(box.top, r.top),
                   right: Math.max(box.right, r.right), bottom: Math.max(box.bottom, r.bottom)}
                : {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    });
    if (!box) { return; }
    var p = pane.getBoundingClientRect();
    pane.scrollLeft += (box.left + box.right) / 2 - (p.left + p.right) / 2;
    pane.scrollTop += (box.top + box.bottom) / 2 - (p.top + p.bottom) / 2;
  }

  // A frame of a pass shows its pass's picture with the contents of the nodes and edges that
  // differ swapped in, each piece found by its id "still<pass>_<statement>"; a frame's list of
  // changes is from the frame before (its index: d[3]) (NOTE [One picture per pass]).
  var pictures = document.querySelectorAll('.passes svg'), pieces = [];
  pictures.forEach(function (svg, p) {
    var mine = {at: {}, form: {}, first: {}};
    svg.querySelectorAll('g[id^="still"]').forEach(function (g) {
      var j = g.id.split('_')[1];
      mine.at[j] = g;
      if (j in stills.passes[p].forms) { mine.first[j] = g.innerHTML; }
    });
    pieces.push(mine);
  });

  function mount(f, i) {
    var d = stills.frames[i];
    if (!d) { return; }
    var mine = pieces[d[0]], svg = pictures[d[0]], forms = stills.passes[d[0]].forms;
    var want = {}, chain = [];
    for (var k = i; k >= 0; k = stills.frames[k][3]) { chain.push(stills.frames[k][2]); }
    chain.reverse().forEach(function (changed) {
      for (var n = 0; n < changed.length; n += 2) { want[changed[n]] = changed[n + 1]; }
    });
    Object.keys(mine.form).forEach(function (j) { if (!(j in want)) { want[j] = 0; } });
    Object.keys(want).forEach(function (j) {
      if ((mine.form[j] || 0) === want[j]) { return; }
      mine.at[j].innerHTML = want[j] ? forms[j][want[j] - 1] : mine.first[j];
      mine.form[j] = want[j];
    });
    svg.querySelector('title').textContent = d[1];
    var pane = f.querySelector('.graph');
    if (svg.parentNode !== pane) { pane.appendChild(svg); }
  }

  function where(f, j) {
    return 'step ' + f.dataset.step + ' of ' + f.dataset.total + ' (frame ' + (j + 1) + ' of ' +
      frames.length + ')';
  }
  // The position at its widest (the last frame's, every digit a 0), measured once: the header keeps
  // its width, and so its wrapping, from frame to frame.
  position.textContent = where(frames[frames.length - 1], frames.length - 1).replace(/[0-9]/g, '0');
  position.style.minWidth = position.getBoundingClientRect().width + 'px';

  function show(k) {
    current = Math.max(0, Math.min(frames.length - 1, k));
    for (var j = 0; j < frames.length; j++) { frames[j].hidden = (j !== current); }
    var f = frames[current];
    position.textContent = where(f, current);
    prev.disabled = current === 0;
    next.disabled = current === frames.length - 1;
    mount(f, current);
    layout(f);
    focus(f);
  }
  function rezoom(factor, all) {
    whole = all;
    zoom = factor === null ? 1 : zoom * factor;
    show(current);
  }

  prev.addEventListener('click', function () { show(current - 1); });
  next.addEventListener('click', function () { show(current + 1); });
  document.getElementById('zoom-in').addEventListener('click', function () { rezoom(1.25, false); });
  document.getElementById('zoom-out').addEventListener('click', function () { rezoom(1 / 1.25, false); });
  document.getElementById('zoom-whole').addEventListener('click', function () { rezoom(null, true); });
  document.getElementById('zoom-reset').addEventListener('click', function () { rezoom(null, false); });
  document.addEventListener('keydown', function (e) {
    var keys = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: frames.length - 1};
    if (e.key in keys && !e.altKey && !e.ctrlKey && !e.metaKey) { show(keys[e.key]); e.preventDefault(); }
    else if (e.key === '+' || e.key === '=') { rezoom(1.25, false); }
    else if (e.key === '-') { rezoom(1 / 1.25, false); }
    else if (e.key === '0') { rezoom(null, false); }
  });
  document.querySelectorAll('.graph').forEach(function (pane) {  // drag to pan
    var start = null;
    pane.addEventListener('mousedown', function (e) {
      start = [e.clientX, e.clientY, pane.scrollLeft, pane.scrollTop];
      pane.classList.add('dragging');
      e.preventDefault();
    });
    window.addEventListener('mousemove', function (e) {
      if (!start) { return; }
      pane.scrollLeft = start[2] - (e.clientX - start[0]);
      pane.scrollTop = start[3] - (e.clientY - start[1]);
    });
    window.addEventListener('mouseup', function () { start = null; pane.classList.remove('dragging'); });
  });
  window.addEventListener('resize', function () { show(current); });
  show(0);
})();
