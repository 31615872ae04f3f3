// Starting rulelang in the browser: Pyodide from the site's own copy, then the rulelang,
// lark and attrs wheels unpacked into its site-packages. Nothing comes from the network.
// The page and the simulation worker both start this way.

export async function boot(base, say = () => {}) {
  const started = performance.now();
  say("loading the manifest");
  const manifest = await (await fetch(new URL("manifest.json", base))).json();
  say(`loading Python (Pyodide ${manifest.pyodide})`);
  const { loadPyodide } = await import(new URL("vendor/pyodide/pyodide.mjs", base).href);
  const pyodide = await loadPyodide({ indexURL: new URL("vendor/pyodide/", base).href });
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  for (const wheel of manifest.wheels) {
    say(`unpacking ${wheel.split("/").pop()}`);
    const response = await fetch(new URL(wheel, base));
    if (!response.ok) throw new Error(`cannot load ${wheel}: ${response.status}`);
    pyodide.unpackArchive(await response.arrayBuffer(), "wheel", { extractDir: sitePackages });
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
  say("starting rulelang");
  const api = pyodide.pyimport("rulelang.playground.api");
  const call = (request) => JSON.parse(api.handle(JSON.stringify(request)));
  return { manifest, call, pyodide, seconds: (performance.now() - started) / 1000 };
}
