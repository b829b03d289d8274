#!/usr/bin/env python3
"""owslib_test.py: OWSLib's OGC API client (Debian's python3-owslib)
against the real westd on 127.0.0.1 (TAP output): it reads the landing
page, the conformance classes, the collections and the wind collection,
and the API description through the landing page's service-desc link
(owslib.ogcapi.API.api(), which needs the link typed
application/vnd.oai.openapi+json;version=3.0).

westd runs from the build directory on a free port with the default
terrain, the CPU backend and 20 iterations, its state in a temp
directory; the sample observations (data/obs/default.json, their time set
to now) make field v1 first, so that the collection has its time.

Usage: owslib_test.py (top_srcdir and top_builddir from the environment,
as make check sets them; default: the current directory).  Exits 77 with
"1..0 # SKIP why" when owslib is not installed for this python3
(tests/owslib_test.sh turns that into the TAP skip).
"""
import sys
import tempfile

from westd_proc import Tap, Westd, skip

OPENAPI = "application/vnd.oai.openapi+json;version=3.0"


try:
    import owslib
    from owslib.ogcapi import API, Collections
except ImportError:
    skip(f"OWSLib is not installed for {sys.executable} "
         "(Debian: apt-get install python3-owslib)")


def run(tap, w):
    root = w.url + "/"

    def landing():
        api = API(root)
        rels = {k["rel"]: k for k in api.links}
        for rel in ("self", "conformance", "data", "service-desc", "service-doc"):
            if rel not in rels:
                return f"no {rel} link in {sorted(rels)}"
        if rels["service-desc"]["type"] != OPENAPI:
            return f"service-desc type {rels['service-desc']['type']!r}"
        if rels["service-doc"]["type"] != "text/html":
            return f"service-doc type {rels['service-doc']['type']!r}"
        return None

    def conformance():
        c = API(root).conformance()
        classes = c.get("conformsTo", [])
        if not any("ogcapi-edr-1" in k for k in classes):
            return f"no EDR conformance class in {classes}"
        if not any("ogcapi-common-1" in k for k in classes):
            return f"no OGC API - Common class in {classes}"
        return None

    def collections():
        cs = Collections(root)
        ids = [c.get("id") for c in cs.collections().get("collections", [])]
        if ids != ["wind"]:
            return f"collections {ids}"
        wind = cs.collection("wind")
        for key in ("extent", "data_queries", "parameter_names"):
            if key not in wind:
                return f"collection wind has no {key}: {sorted(wind)}"
        if not wind["extent"].get("temporal"):
            return "collection wind has no temporal extent after a field"
        return None

    def api_document():
        doc = API(root).api()
        if not str(doc.get("openapi", "")).startswith("3.0."):
            return f"openapi {doc.get('openapi')!r}"
        paths = doc.get("paths", {})
        for p in ("/", "/api", "/conformance", "/collections", "/collections/wind",
                  "/collections/wind/position", "/collections/wind/area",
                  "/collections/wind/cube", "/v1/field/point", "/v1/observations"):
            if p not in paths:
                return f"{p} is not in paths ({sorted(paths)})"
        names = {q["name"] for q in paths["/collections/wind/position"]["get"]["parameters"]}
        if not {"coords", "z", "parameter-name", "datetime", "crs"} <= names:
            return f"position parameters {sorted(names)}"
        if "post" not in paths["/v1/observations"]:
            return "POST /v1/observations is not described"
        return None

    tap.check(f"OWSLib {owslib.__version__} API(): the landing page and its links", landing)
    tap.check("API().conformance(): EDR and Common classes", conformance)
    tap.check("Collections(): collections() and collection('wind')", collections)
    tap.check("API().api(): the OpenAPI 3.0 document through service-desc", api_document)


def main():
    tap = Tap(4)
    with tempfile.TemporaryDirectory(prefix="westd-owslib-") as tmp:
        w = Westd(tmp, 20)
        try:
            w.wait_version(w.post_obs())
            run(tap, w)
        finally:
            w.stop(show_log=tap.failed)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
