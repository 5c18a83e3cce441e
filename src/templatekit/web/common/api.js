// What the pages share: calls to /v1 with the key held in page memory, the same
// request as curl and Python, signed URLs, and the events of a streamed video render.

export class ApiFailure extends Error {
  constructor(status, code, message, problems = []) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.problems = problems; // "path: message", one per problem of an invalid template
  }
}

export class Api {
  /** ``renew`` (optional): asked for a new key when the key is refused (401), once per
   * call, before the call is sent again; null when there is none to give. */
  constructor(base, key, renew = null) {
    this.base = base.replace(/\/$/, ""); // e.g. https://host/v1
    this.key = key;
    this.renew = renew;
  }

  /** A new key from ``renew``, in place of the one refused; false when there is none. */
  async renewed(refused) {
    if (!this.renew) return false;
    if (this.key !== refused) return true; // another call renewed it meanwhile
    const key = await this.renew().catch(() => null);
    if (!key) return false;
    this.key = key;
    return true;
  }

  async call(path, options = {}) {
    const sent = this.key;
    const response = await this.send(path, options);
    if (response.status === 401 && (await this.renewed(sent))) return this.checked(await this.send(path, options));
    return this.checked(response);
  }

  async send(path, { method = "GET", body, query, headers = {} } = {}) {
    const url = new URL(`${this.base}${path}`);
    for (const [name, value] of Object.entries(query || {})) url.searchParams.set(name, value);
    const response = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${this.key}`,
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return response;
  }

  async checked(response) {
    if (!response.ok) {
      let failure = new ApiFailure(response.status, `HTTP ${response.status}`, response.statusText);
      try {
        const { error } = await response.json();
        failure = new ApiFailure(response.status, error.code, error.message, error.problems || []);
      } catch {}
      throw failure;
    }
    return response;
  }

  async json(path, options) {
    return (await this.call(path, options)).json();
  }

  /** A file uploaded as an asset: ``{id, mediaType, size, src}``, ``src`` being what a
   * template names it by. The bytes go once; previews then send only ``src``. */
  async upload(file) {
    const url = new URL(`${this.base}/assets`);
    const response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.key}`, "Content-Type": file.type || "application/octet-stream" },
      body: file,
    });
    if (!response.ok) {
      const { error } = await response.json().catch(() => ({ error: { code: `HTTP ${response.status}`, message: response.statusText } }));
      throw new ApiFailure(response.status, error.code, error.message);
    }
    return response.json();
  }
}

/** The API's base URL for a page served next to /v1 (…/playground/, …/editor/). */
export function apiNextTo(page) {
  return new URL("../v1/", page).href.replace(/\/$/, "");
}

/** The warnings of a render's X-Templatekit-Warnings header. */
export function warningsOf(response) {
  const header = response.headers.get("X-Templatekit-Warnings");
  return header ? JSON.parse(header) : [];
}

// ------------------------------------------------------------------ the same request as code

export function curlCode(base, operation, body, output) {
  const quoted = `'${JSON.stringify(body).replaceAll("'", "'\\''")}'`;
  return (
    `curl -X POST ${base}/templates/${operation} \\\n  -H "Authorization: Bearer $TEMPLATEKIT_KEY" \\\n` +
    `  -H "Content-Type: application/json" \\\n  -d ${quoted}${output ? ` -o ${output}` : ""}`
  );
}

export function pythonCode(base, operation, body, output) {
  // Without an output file the answer is JSON with the file's URL (renderVideo).
  const save = output ? `open("${output}", "wb").write(answer.content)` : `print(answer.json()["url"])`;
  return (
    `import os, httpx\n\nanswer = httpx.post(\n    "${base}/templates/${operation}",\n` +
    `    headers={"Authorization": f"Bearer {os.environ['TEMPLATEKIT_KEY']}"},\n` +
    `    json=${python(body, "    ")},\n    timeout=${output ? "60" : "None"},\n)\nanswer.raise_for_status()\n${save}`
  );
}

export function python(value, indent = "") {
  // JSON as a Python literal: strings and numbers are the same, the constants are not.
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    return value.length ? `[\n${value.map((item) => inner + python(item, inner)).join(",\n")},\n${indent}]` : "[]";
  }
  if (typeof value === "object") {
    const items = Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${python(item, inner)}`);
    return items.length ? `{\n${items.join(",\n")},\n${indent}}` : "{}";
  }
  return JSON.stringify(value);
}

// ------------------------------------------------------------------ signed URLs

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A signed image URL, signed in the page with HMAC-SHA256 of the key: anyone can load
 * it without the key. ``expiresIn``: seconds, or "" for never. */
export async function signedUrl(base, key, { templateId, format, modifications, expiresIn }) {
  const encoder = new TextEncoder();
  const params = new URLSearchParams({
    apiKeyHashed: hex(await crypto.subtle.digest("SHA-256", encoder.encode(key))),
    templateId,
    format,
  });
  if (modifications && modifications.length) params.set("modifications", JSON.stringify(modifications));
  if (expiresIn) params.set("expires", String(Math.floor(Date.now() / 1000) + Number(expiresIn)));
  params.sort();
  const hmac = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  params.append("sign", hex(await crypto.subtle.sign("HMAC", hmac, encoder.encode(params.toString()))));
  return `${base}/templates/signedurl?${params}`;
}

// ------------------------------------------------------------------ streamed video renders

/** The events of renderVideo?stream=true: EventSource cannot POST, so the
 * text/event-stream records are read from the response body. */
export async function* serverEvents(stream) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const record = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = record.match(/^event: (.*)$/m)?.[1];
      const data = record.match(/^data: (.*)$/m)?.[1];
      if (event && data) yield { event, data: JSON.parse(data) };
    }
  }
}

/** A streamed video render: ``show(text, progress)`` as it goes; the video's URL. */
export async function renderVideoStreamed(api, body, show) {
  const response = await api.call("/templates/renderVideo", { method: "POST", body, query: { stream: "true" } });
  for await (const { event, data } of serverEvents(response.body)) {
    if (event === "created") show(`video ${data.id} created`, 0);
    if (event === "queued") show(`waiting: ${data.ahead} ahead`, 0);
    if (event === "progress") show(`frame ${data.frame} of ${data.totalFrames}`, data.progress);
    if (event === "done") {
      show("done", 1);
      return data.url;
    }
    if (event === "error") throw new ApiFailure(0, data.error.code, data.error.message);
  }
  throw new Error("the render stopped without an answer");
}
