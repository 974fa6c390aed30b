// The web app's shell. The tenant dashboard and the platform admin screens land
// here as their issues do; until then it says what the gateway is and how to use it.
export function App() {
  const base = `${window.location.origin}/v1`;
  return (
    <main className="shell landing">
      <header>
        <h1>Optimizer</h1>
        <p className="tagline">The cheapest model that still holds each step's quality bar, with the proof per call.</p>
      </header>
      <section>
        <h2>Point your client here</h2>
        <pre>{`const client = new OpenAI({ baseURL: '${base}', apiKey: 'sk-opt-…' });`}</pre>
        <p>
          Get a key with <code>POST /v1/signup</code>. Every completion answers with an <code>optimizer</code> block: what the
          call would have cost, what it cost, and the saving.
        </p>
      </section>
      <p className="landing-foot">
        Platform admin? <a href="/optimizer/admin">Open the admin console</a> to manage the model catalog and providers.
      </p>
    </main>
  );
}
