"""An OpenAI-compatible /v1/embeddings endpoint over WordLlama (PyPI `wordllama`, whose wheel
holds its weights and tokenizer), for recording the vectors of the retrieval-quality test
(src/documents/quality.rs). Not used by the tests themselves.

    python -m venv /tmp/wl && /tmp/wl/bin/pip install wordllama
    /tmp/wl/bin/python scripts/wordllama-embeddings.py 18766
"""
import json
import pathlib
import sys
import tempfile
from http.server import BaseHTTPRequestHandler, HTTPServer

import wordllama
from wordllama import WordLlama

# The package looks for its bundled files in a cache folder: point one at them.
package = pathlib.Path(wordllama.__file__).parent
cache = pathlib.Path(tempfile.mkdtemp())
for sub in ("tokenizers", "weights"):
    (cache / sub).symlink_to(package / sub)
model = WordLlama.load(cache_dir=cache)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = model.embed(texts)
        answer = json.dumps({"object": "list", "model": "wordllama-l2-supercat-256",
                             "data": [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
                                      for i, v in enumerate(vectors)]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
