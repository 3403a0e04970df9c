// Draws every chart figure of the page (figure.chart) with uPlot, from the JSON spec inside it
// (io.shardq.tools.Charts#render): x is categorical (evenly spaced), the y ticks and every label
// were computed and formatted in Java, so nothing is formatted here.
(function () {
  "use strict";

  function draw(figure) {
    var spec = JSON.parse(figure.querySelector("script.chart-spec").textContent);
    var xs = spec.categories.map(function (_, i) { return i; });
    var data = [xs].concat(spec.series.map(function (s) { return s.values; }));
    var top = spec.yTicks[spec.yTicks.length - 1];
    var opts = {
      title: spec.title,
      width: 560,
      height: 360,
      scales: {
        x: { time: false, range: [-0.5, Math.max(0.5, xs.length - 0.5)] },
        y: { range: [0, top] }
      },
      axes: [
        {
          label: spec.xLabel,
          splits: function () { return xs; },
          values: function (u, splits) {
            return splits.map(function (i) { return spec.xLabels[i] || ""; });
          }
        },
        {
          label: spec.yLabel,
          size: 70,
          splits: function () { return spec.yTicks; },
          values: function () { return spec.yTickLabels; }
        }
      ],
      series: [
        {
          label: spec.unit,
          value: function (u, i) { return i == null ? "" : spec.categories[i]; }
        }
      ].concat(spec.series.map(function (s) {
        return {
          label: s.name,
          stroke: s.color,
          width: 2,
          points: { show: true, size: 7, fill: s.color },
          spanGaps: false,
          value: function (u, v, si, i) { return i == null ? "" : s.labels[i]; }
        };
      }))
    };
    new uPlot(opts, data, figure.querySelector(".chart-plot"));
  }

  function drawAll() {
    var figures = document.querySelectorAll("figure.chart");
    for (var k = 0; k < figures.length; k++) {
      draw(figures[k]);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
