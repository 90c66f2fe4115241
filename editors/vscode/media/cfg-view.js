// The CFG panel's page: draws spvls.showCfg's DOT with Viz.js (Graphviz compiled to WebAssembly,
// loaded before this script as the global `Viz`), marks the block at the cursor, and asks the
// extension to jump to a block's label when the block is clicked.
(function () {
  "use strict";
  const vscode = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : undefined;
  const graph = document.getElementById("graph");
  const status = document.getElementById("status");
  let viz;
  let drawn = null;

  function nodeId(g) {
    const title = g.querySelector("title");
    return title ? title.textContent : "";
  }

  function markCurrent(current) {
    for (const g of graph.querySelectorAll("g.node")) {
      g.classList.toggle("current", nodeId(g) === current);
    }
  }

  async function render(answer) {
    if (!answer || !answer.dot) {
      status.textContent = (answer && answer.message) || "no function here";
      graph.replaceChildren();
      drawn = null;
      return;
    }
    status.textContent = answer.function;
    if (answer.dot !== drawn) {
      try {
        viz = viz || (await Viz.instance());
        const svg = viz.renderSVGElement(answer.dot);
        graph.replaceChildren(svg);
        drawn = answer.dot;
      } catch (err) {
        status.textContent = `could not draw ${answer.function}: ${err}`;
        return;
      }
      for (const g of graph.querySelectorAll("g.node")) {
        g.addEventListener("click", () => vscode && vscode.postMessage({ type: "reveal", node: nodeId(g) }));
      }
    }
    markCurrent(answer.current);
    document.body.dataset.rendered = answer.function;
  }

  window.addEventListener("message", (event) => {
    if (event.data && event.data.type === "show") {
      render(event.data.answer);
    }
  });
  window.spvlsCfg = { render };
  // An answer posted while this page was still loading (Viz.js is large) was lost: ask again.
  if (vscode) {
    vscode.postMessage({ type: "ready" });
  }
})();
