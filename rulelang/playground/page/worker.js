// The simulation runs here, off the page's thread, so the page stays live while bots play.
import { boot } from "./boot.js";

const base = new URL("./", self.location.href);
const ready = boot(base);
const CHUNK = 10;

self.onmessage = async ({ data }) => {
  try {
    const { call } = await ready;
    const started = call({ op: "simulate_start", ...data });
    if (started.error) {
      self.postMessage({ error: started.error, diagnostics: started.diagnostics });
      return;
    }
    let answer = { done: 0, total: started.total };
    while (answer.done < answer.total) {
      answer = call({ op: "simulate_more", sim: started.sim, games: CHUNK });
      if (answer.error) {
        self.postMessage({ error: answer.error });
        return;
      }
      self.postMessage({ progress: answer });
    }
    self.postMessage({ finished: answer });
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
