/*
 * app.js: the westd map page (index.html; docs/operations.md, "The map
 * page").  Plain JavaScript, no library, no outside network: everything
 * comes from westd's JSON API (docs/api.md) on the page's own origin.
 *
 * Polling: every POLL_MS the page asks GET /v1/field with If-None-Match
 * "vN" (304 while the field is unchanged); before the first field it asks
 * /v1/status instead, which answers 200 either way.  A new version brings
 * the slice at the chosen height (pinned to that version), the stations
 * of /v1/observations, and the terrain again when the grid changed.
 * /v1/status (backend, device) is read again every STATUS_MS.  Slices and
 * terrain come at the smallest stride that keeps them under MAX_COLUMNS
 * columns and westd's max_response_cells (/ui/config.json).  While westd
 * runs, the only answers that can be errors are a click's point and
 * profile (a point in a terrain cell is 422): a page left open on a
 * console logs none.
 *
 * Coordinates: x east and y north in the grid's projected CRS (m), as the
 * API gives them.  The view is a centre (cx, cy) in m and a scale s in CSS
 * pixels per m; north is up.  Canvases are sized in device pixels and
 * drawn in CSS pixels.
 *
 * Layers, bottom to top: terrain (hypsometric tint and hillshade of
 * /v1/terrain), wind (arrows every ARROW_PX at most, thinned by whole grid
 * steps as the zoom changes), flow (animated streamlines, optional), plume
 * (a release's footprint as filled contours, lightest the lowest level,
 * and its centroid's trajectory), marks (stations with their observed
 * wind, the clicked point, the release point).
 *
 * Releases (docs/api.md "Releases"): "Place on the map" makes the next
 * click the release point; Release posts it (with the token typed, which
 * is kept in this page only) and polls its status every RELEASE_MS until
 * it is done; then the footprint and the trajectory come in the grid's
 * CRS (crs= the wind collection's native identifier), the page's own
 * coordinates.  Show draws a release posted elsewhere by its id.
 *
 * Age: the time since the field's valid time (the newest station time),
 * as westd's age_seconds counts it for the API, /readyz and the metrics;
 * on westd's clock (valid_time + age_seconds of the field answer is
 * westd's time then, plus the time passed here since), amber past
 * age_warn and red past age_alert of /ui/config.json (westd.conf
 * ui_age_warn, ui_age_alert).  The publish time is in the valid time's
 * tooltip.
 */
(function () {
	'use strict';

	const POLL_MS = 2000, STATUS_MS = 15000, ARROW_PX = 38, MAX_COLUMNS = 250000;
	const RELEASE_MS = 1000;
	const PLUME_COLOURS = [[254, 240, 138], [251, 146, 60], [220, 38, 38], [126, 34, 206]];
	const HEIGHTS = [2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000,
		1500, 2000, 3000, 5000];
	const SPEED_STOPS = [[0, [37, 99, 235]], [0.3, [6, 182, 212]], [0.55, [250, 204, 21]],
		[0.8, [249, 115, 22]], [1, [220, 38, 38]]];
	const GROUND_STOPS = [[0, [74, 110, 78]], [0.3, [122, 140, 94]], [0.6, [156, 142, 108]],
		[0.85, [140, 120, 104]], [1, [215, 212, 205]]];

	const $ = (id) => document.getElementById(id);
	const st = {
		config: { age_warn: 1800, age_alert: 3600, max_response_cells: 1000000 },
		status: null,       // the last /v1/status
		statusAt: 0,        // performance.now() of it
		field: null,        // /v1/field of the version shown
		clock: null,        // { server: ms since epoch, local: performance.now() }
		gridKey: '',        // the grid the terrain was drawn for
		grid: null,
		terrain: null,      // { x, y, g (Float32Array), nx, ny, min, max, image }
		slice: null,        // { x, y, u, v (Float32Array), nx, ny, vref, version, z }
		stations: [],
		z: 10,
		view: null,         // { cx, cy, s }
		pick: null,         // { x, y }: the clicked point
		popup: null,        // the station whose popup is open
		flow: null,         // { particles, running }
		crsId: null,        // the grid's CRS as crs= names it (/collections/wind)
		release: { placing: false, point: null, id: 0, footprint: null, path: null },
	};

	/* ------------------------------------------------------------ fetch */

	/* GET path as JSON: { status, body } (body null for 304); etag for
	 * If-None-Match.  Throws only when westd does not answer. */
	async function get(path, etag) {
		const headers = { Accept: 'application/json' };
		if (etag)
			headers['If-None-Match'] = etag;
		const r = await fetch(path, { headers: headers, cache: 'no-store' });
		let body = null;
		if (r.status !== 304) {
			try {
				body = await r.json();
			} catch (e) {
				body = { detail: 'not JSON: ' + e.message };
			}
		}
		return { status: r.status, body: body };
	}

	function setConn(ok, text) {
		const c = $('conn');
		c.textContent = text;
		c.classList.toggle('bad', !ok);
	}

	/* ------------------------------------------------------------ polling */

	async function poll() {
		try {
			if (!st.field) {
				await readStatus();
				if (st.status.field)
					await readField();
			} else {
				await readField();
				if (performance.now() - st.statusAt > STATUS_MS)
					await readStatus();
			}
			setConn(true, 'live, checked ' + new Date().toLocaleTimeString());
		} catch (e) {
			setConn(false, 'westd does not answer (' + e.message + '); retrying');
		}
		setTimeout(poll, POLL_MS);
	}

	async function readStatus() {
		const r = await get('/v1/status');
		if (r.status !== 200)
			throw new Error('/v1/status: ' + r.status);
		st.status = r.body;
		st.statusAt = performance.now();
		const b = r.body.backend;
		$('backend').textContent = b.name;
		$('backend').title = b.device + (b.note ? ' (' + b.note + ')' : '');
		if (!st.field) {
			$('nofield').hidden = !!r.body.field;
			await useGrid(r.body.grid);
		}
	}

	async function readField() {
		const r = await get('/v1/field', st.field ? '"v' + st.field.version + '"' : null);
		if (r.status === 304)
			return;
		if (r.status === 503) {   // no field any more (a restart without snapshots)
			st.field = null;
			$('nofield').hidden = false;
			return;
		}
		if (r.status !== 200)
			throw new Error('/v1/field: ' + r.status);
		const f = r.body;
		st.clock = { server: Date.parse(f.valid_time) + 1000 * f.age_seconds,
			local: performance.now() };
		await useGrid(f.grid);
		const [slice, obs] = await Promise.all([fetchSlice(f.version), get('/v1/observations')]);
		st.field = f;
		st.slice = slice;
		st.stations = obs.status === 200 && obs.body.current ?
			obs.body.current.observations : [];
		$('nofield').hidden = true;
		showHeader();
		draw();
		if (slice.z !== st.z)   // the height changed meanwhile
			onHeight();
		else if (st.pick)
			pickAt(st.pick.x, st.pick.y);
		if (st.popup)
			openPopup(st.stations.find((s) => s.id === st.popup.id));
	}

	/* --------------------------------------------------------- the header */

	function showHeader() {
		const f = st.field, s = f.solve;
		$('version').textContent = 'v' + f.version;
		$('valid').textContent = f.valid_time.replace('T', ' ');
		$('valid').title = 'published ' + f.published_at.replace('T', ' ') +
			', from observation set ' + f.observation_set;
		$('solver').textContent = s.solver + (s.indexing ? ', ' + s.indexing : '');
		$('residual').textContent = exp(s.end && s.end.rel_max);
		$('residual').title = 'max |div| h / U_ref after the last sweep; tolerance ' +
			s.tolerance + '; after divergence removal ' + exp(s.final && s.final.rel_max);
		$('iterations').textContent = s.iterations + ' / ' + s.iterations_max +
			(s.converged ? '' : ' (not converged)');
		$('stations').textContent = f.stations;
		showAge();
	}

	function showAge() {
		const el = $('age');
		if (!st.field || !st.clock)
			return;
		const now = st.clock.server + performance.now() - st.clock.local;
		const age = Math.round((now - Date.parse(st.field.valid_time)) / 1000);
		const c = st.config;
		el.textContent = age < 0 ? '-' + duration(-age) : duration(age);
		el.title = age < 0 ? 'the valid time is ahead of westd\'s clock' :
			'time since the valid time (amber after ' + duration(c.age_warn) +
			', red after ' + duration(c.age_alert) + ')';
		const alert = c.age_alert > 0 && age > c.age_alert;
		el.className = 'age ' + (alert ? 'alert' : c.age_warn > 0 && age > c.age_warn ?
			'warn' : 'ok');
	}

	function exp(v) {
		return typeof v === 'number' ? v.toExponential(1) : '\u2013';
	}

	function duration(s) {
		if (s < 60)
			return s + ' s';
		if (s < 3600)
			return Math.floor(s / 60) + ' min';
		if (s < 86400)
			return Math.floor(s / 3600) + ' h ' + String(Math.floor(s / 60) % 60).padStart(2, '0');
		return Math.floor(s / 86400) + ' d ' + Math.floor(s / 3600) % 24 + ' h';
	}

	/* ----------------------------------------------------- grid, terrain */

	async function useGrid(g) {
		const key = JSON.stringify(g);
		if (key === st.gridKey)
			return;
		const r = await get('/v1/terrain?stride=' + stride(g, 1));
		if (r.status !== 200)
			throw new Error('/v1/terrain: ' + r.status);
		st.terrain = shade(r.body);
		st.grid = g;
		st.gridKey = key;
		setHeights();
		if (!st.view)
			fit();
		draw();
	}

	/* The stride that keeps an answer of `per` values a column under
	 * MAX_COLUMNS columns and under westd's max_response_cells. */
	function stride(g, per) {
		const cap = Math.min(MAX_COLUMNS, st.config.max_response_cells / per);
		let s = Math.max(1, Math.floor(Math.sqrt(g.nx * g.ny / cap)));
		while (Math.ceil(g.nx / s) * Math.ceil(g.ny / s) > cap && s < Math.max(g.nx, g.ny))
			s++;
		return s;
	}

	/* Rows of ground altitudes into a tinted, hill-shaded image, one pixel
	 * per column (row 0 north). */
	function shade(t) {
		const nx = t.x.length, ny = t.y.length, g = new Float32Array(nx * ny);
		let min = Infinity, max = -Infinity;
		for (let j = 0; j < ny; j++)
			for (let i = 0; i < nx; i++) {
				const z = t.ground[j][i];
				g[j * nx + i] = z === null ? NaN : z;
				if (z !== null) {
					min = Math.min(min, z);
					max = Math.max(max, z);
				}
			}
		const cx = nx > 1 ? t.x[1] - t.x[0] : 1, cy = ny > 1 ? t.y[1] - t.y[0] : 1;
		const img = document.createElement('canvas');
		img.width = nx;
		img.height = ny;
		const ctx = img.getContext('2d'), data = ctx.createImageData(nx, ny);
		const at = (i, j) => {
			const z = g[Math.min(ny - 1, Math.max(0, j)) * nx + Math.min(nx - 1, Math.max(0, i))];
			return isNaN(z) ? min : z;
		};
		const light = [-0.5, 0.5, Math.SQRT1_2];   // from the north-west, 45 degrees up
		for (let j = 0; j < ny; j++)
			for (let i = 0; i < nx; i++) {
				const ex = 1.5;   // vertical exaggeration of the shading
				const gx = ex * (at(i + 1, j) - at(i - 1, j)) / (2 * cx);
				const gy = ex * (at(i, j + 1) - at(i, j - 1)) / (2 * cy);
				const n = Math.hypot(gx, gy, 1);
				const lit = Math.max(0, (-gx * light[0] - gy * light[1] + light[2]) / n);
				const c = ramp(GROUND_STOPS, max > min ? (at(i, j) - min) / (max - min) : 0.5);
				const k = 0.35 + 0.75 * lit, o = 4 * ((ny - 1 - j) * nx + i);
				data.data[o] = c[0] * k;
				data.data[o + 1] = c[1] * k;
				data.data[o + 2] = c[2] * k;
				data.data[o + 3] = 255;
			}
		ctx.putImageData(data, 0, 0);
		return { x: t.x, y: t.y, g: g, nx: nx, ny: ny, cx: cx, cy: cy, min: min, max: max,
			image: img };
	}

	/* Ground altitude at (x, y), bilinear between column centres; NaN off
	 * the grid. */
	function groundAt(x, y) {
		const t = st.terrain;
		return t ? bilinear(t.g, t.nx, t.ny, (x - t.x[0]) / t.cx, (y - t.y[0]) / t.cy) : NaN;
	}

	function bilinear(a, nx, ny, fi, fj) {
		if (!(fi >= -0.5 && fj >= -0.5 && fi <= nx - 0.5 && fj <= ny - 0.5))
			return NaN;
		fi = Math.min(Math.max(fi, 0), nx - 1);
		fj = Math.min(Math.max(fj, 0), ny - 1);
		const i = Math.min(Math.floor(fi), Math.max(nx - 2, 0)), j = Math.min(Math.floor(fj),
			Math.max(ny - 2, 0));
		const di = fi - i, dj = fj - j, i1 = Math.min(i + 1, nx - 1), j1 = Math.min(j + 1, ny - 1);
		return (a[j * nx + i] * (1 - di) + a[j * nx + i1] * di) * (1 - dj) +
			(a[j1 * nx + i] * (1 - di) + a[j1 * nx + i1] * di) * dj;
	}

	/* ------------------------------------------------------------- slices */

	/* cos and sin of the meridian convergence at the domain's centre
	 * (/v1/field grid.meridian_convergence: grid north lies that many
	 * degrees clockwise of true north; 0 when westd does not know it).
	 * The API answers winds towards true east and north; the map is drawn
	 * on the grid. */
	function gridTurn() {
		const c = (st.grid && st.grid.meridian_convergence || 0) * Math.PI / 180;
		return [Math.cos(c), Math.sin(c)];
	}

	async function fetchSlice(version) {
		const g = st.grid;
		const r = await get('/v1/field/slice?z=' + st.z + '&stride=' + stride(g, 3) +
			'&version=' + version);
		if (r.status !== 200)
			throw new Error('/v1/field/slice: ' + r.status + ' ' + (r.body && r.body.detail));
		const s = r.body, nx = s.x.length, ny = s.y.length;
		const u = new Float32Array(nx * ny), v = new Float32Array(nx * ny);
		const [cg, sg] = gridTurn();
		let vmax = 0;
		for (let j = 0; j < ny; j++)
			for (let i = 0; i < nx; i++) {
				const a = s.u[j][i], b = s.v[j][i], k = j * nx + i;
				// true east, north back to the grid's x, y, which the map draws
				u[k] = a === null || b === null ? NaN : a * cg - b * sg;
				v[k] = a === null || b === null ? NaN : a * sg + b * cg;
				if (a !== null && b !== null)
					vmax = Math.max(vmax, Math.hypot(a, b));
			}
		return { x: s.x, y: s.y, u: u, v: v, nx: nx, ny: ny, z: s.z, version: s.version,
			cx: nx > 1 ? s.x[1] - s.x[0] : g.dx, cy: ny > 1 ? s.y[1] - s.y[0] : g.dy,
			vref: niceCeil(Math.max(vmax, 1)) };
	}

	function niceCeil(v) {
		const p = Math.pow(10, Math.floor(Math.log10(v)));
		return [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * p).find((c) => c >= v);
	}

	/* A chart axis from 0 past v: { max, step }, 3 to 5 round steps. */
	function axis(v) {
		const raw = v / 4, p = Math.pow(10, Math.floor(Math.log10(raw)));
		const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((c) => c >= raw);
		return { max: Math.ceil(v / step - 1e-9) * step, step: step };
	}

	/* The wind (u, v) at (x, y) of the slice, or null where it has none. */
	function windAt(x, y) {
		const s = st.slice;
		if (!s)
			return null;
		const fi = (x - s.x[0]) / s.cx, fj = (y - s.y[0]) / s.cy;
		const u = bilinear(s.u, s.nx, s.ny, fi, fj), v = bilinear(s.v, s.nx, s.ny, fi, fj);
		return isNaN(u) || isNaN(v) ? null : [u, v];
	}

	function setHeights() {
		const g = st.grid, el = $('height');
		const room = g.top_altitude - g.terrain_min;
		let hs = HEIGHTS.filter((h) => h < room);
		if (!hs.length)
			hs = [Math.max(1, Math.floor(room / 2))];
		el.max = hs.length - 1;
		el.dataset.heights = hs.join(',');
		let k = hs.indexOf(st.z);
		if (k < 0) {
			k = Math.max(0, hs.findIndex((h) => h >= st.z));
			st.z = hs[k];
		}
		el.value = k;
		$('heightval').textContent = st.z + ' m';
	}

	let heightTimer = 0;
	function onHeight() {
		const hs = $('height').dataset.heights.split(',').map(Number);
		st.z = hs[$('height').value];
		$('heightval').textContent = st.z + ' m';
		clearTimeout(heightTimer);
		heightTimer = setTimeout(async () => {
			const f = st.field;
			if (!f)
				return;
			try {
				const slice = await fetchSlice(f.version);
				if (st.field !== f || slice.z !== st.z)
					return;   // a newer field or height took over
				st.slice = slice;
			} catch (e) {
				setConn(false, e.message);
			}
			draw();
			if (st.pick)
				pickAt(st.pick.x, st.pick.y);
		}, 200);
	}

	/* ---------------------------------------------------------------- view */

	function mapSize() {
		const m = $('map');
		return [m.clientWidth, m.clientHeight];
	}

	function toScreen(x, y) {
		const [w, h] = mapSize(), v = st.view;
		return [(x - v.cx) * v.s + w / 2, h / 2 - (y - v.cy) * v.s];
	}

	function toWorld(px, py) {
		const [w, h] = mapSize(), v = st.view;
		return [v.cx + (px - w / 2) / v.s, v.cy - (py - h / 2) / v.s];
	}

	function fit() {
		const g = st.grid, [w, h] = mapSize();
		if (!g)
			return;
		const ex = g.nx * g.dx, ey = g.ny * g.dy;
		st.view = { cx: g.x0 + ex / 2, cy: g.y0 + ey / 2,
			s: Math.min((w - 20) / ex, (h - 20) / ey) };
		st.fitScale = st.view.s;
		draw();
	}

	function zoomAt(px, py, f) {
		const v = st.view;
		if (!v)
			return;
		const s = Math.min(Math.max(v.s * f, st.fitScale / 4), st.fitScale * 128);
		const [x, y] = toWorld(px, py);
		v.s = s;
		const [qx, qy] = toWorld(px, py);
		v.cx += x - qx;
		v.cy += y - qy;
		draw();
	}

	function pan(dx, dy) {
		st.view.cx -= dx / st.view.s;
		st.view.cy += dy / st.view.s;
		draw();
	}

	/* -------------------------------------------------------------- drawing */

	let drawPending = false;
	function draw() {
		if (!drawPending) {
			drawPending = true;
			requestAnimationFrame(() => {
				drawPending = false;
				drawNow();
			});
		}
	}

	/* The 2D context of canvas id, sized to the map in device pixels. */
	function layer(id) {
		const c = $(id), [w, h] = mapSize(), r = window.devicePixelRatio || 1;
		if (c.width !== Math.round(w * r) || c.height !== Math.round(h * r)) {
			c.width = Math.round(w * r);
			c.height = Math.round(h * r);
		}
		const ctx = c.getContext('2d');
		ctx.setTransform(r, 0, 0, r, 0, 0);
		ctx.clearRect(0, 0, w, h);
		return ctx;
	}

	function drawNow() {
		if (!st.view)
			return;
		drawTerrain(layer('terrain'));
		drawWind(layer('wind'));
		drawPlume(layer('plume'));
		drawMarks(layer('marks'));
		drawScale();
		drawLegend();
		if (st.popup)
			placePopup();
		resetFlow();
	}

	function drawTerrain(ctx) {
		const t = st.terrain;
		if (!t)
			return;
		const [x0, y1] = toScreen(t.x[0] - t.cx / 2, t.y[t.ny - 1] + t.cy / 2);
		const w = t.nx * t.cx * st.view.s, h = t.ny * t.cy * st.view.s;
		ctx.imageSmoothingEnabled = t.cx * st.view.s < 8;
		ctx.drawImage(t.image, x0, y1, w, h);
		ctx.strokeStyle = 'rgba(226,232,240,0.6)';   // the domain's edge
		ctx.lineWidth = 1;
		ctx.strokeRect(x0 - 0.5, y1 - 0.5, w + 1, h + 1);
	}

	/* An arrow centred on (px, py) along (u, v) (north up), len px long. */
	function arrow(ctx, px, py, u, v, len, head) {
		const sp = Math.hypot(u, v);
		if (!(sp > 0))
			return;
		const ux = u / sp, uy = -v / sp, hx = px + ux * len / 2, hy = py + uy * len / 2;
		ctx.moveTo(px - ux * len / 2, py - uy * len / 2);
		ctx.lineTo(hx, hy);
		ctx.moveTo(hx - ux * head - uy * head * 0.6, hy - uy * head + ux * head * 0.6);
		ctx.lineTo(hx, hy);
		ctx.lineTo(hx - ux * head + uy * head * 0.6, hy - uy * head - ux * head * 0.6);
	}

	function drawWind(ctx) {
		const s = st.slice, [w, h] = mapSize();
		if (!s || !$('arrows').checked)
			return;
		const step = Math.max(1, Math.round(ARROW_PX / (Math.min(s.cx, s.cy) * st.view.s)));
		const room = Math.min(step * Math.min(s.cx, s.cy) * st.view.s, ARROW_PX * 1.5);
		ctx.lineCap = 'round';
		ctx.lineJoin = 'round';
		for (let j = 0; j < s.ny; j += step)
			for (let i = 0; i < s.nx; i += step) {
				const u = s.u[j * s.nx + i], v = s.v[j * s.nx + i];
				const [px, py] = toScreen(s.x[i], s.y[j]);
				const off = px < -room || py < -room || px > w + room || py > h + room;
				if (isNaN(u) || isNaN(v) || off)
					continue;
				const sp = Math.hypot(u, v), len = room * (0.3 + 0.6 * Math.min(sp / s.vref, 1));
				for (const pass of [0, 1]) {
					ctx.beginPath();
					arrow(ctx, px, py, u, v, len, Math.min(7, len / 3));
					ctx.strokeStyle = pass ? rgb(ramp(SPEED_STOPS, sp / s.vref)) :
						'rgba(0,0,0,0.55)';
					ctx.lineWidth = pass ? 1.8 : 3.6;
					ctx.stroke();
				}
			}
	}

	function drawMarks(ctx) {
		if ($('showstations').checked)
			for (const o of st.stations)
				drawStation(ctx, o);
		if (st.release.point)
			drawReleasePoint(ctx, st.release.point);
		if (st.pick) {
			const [px, py] = toScreen(st.pick.x, st.pick.y);
			ctx.beginPath();
			ctx.arc(px, py, 7, 0, 2 * Math.PI);
			ctx.moveTo(px - 12, py);
			ctx.lineTo(px + 12, py);
			ctx.moveTo(px, py - 12);
			ctx.lineTo(px, py + 12);
			ctx.strokeStyle = '#000';
			ctx.lineWidth = 4;
			ctx.stroke();
			ctx.strokeStyle = '#f0abfc';
			ctx.lineWidth = 2;
			ctx.stroke();
		}
	}

	/* A station: a disc, its observed wind as an arrow pointing downwind
	 * (scaled like the field's arrows), its name. */
	function drawStation(ctx, o) {
		const [px, py] = toScreen(o.x, o.y);
		const th = o.direction * Math.PI / 180 -
			Math.asin(gridTurn()[1]);   // true north to the grid's
		const u = -o.speed * Math.sin(th), v = -o.speed * Math.cos(th);
		const vref = st.slice ? st.slice.vref : Math.max(o.speed, 1);
		const len = ARROW_PX * 1.4 * (0.3 + 0.7 * Math.min(o.speed / vref, 1));
		const ux = o.speed > 0 ? u / o.speed : 0, uy = o.speed > 0 ? -v / o.speed : 0;
		for (const pass of [0, 1]) {
			ctx.beginPath();
			arrow(ctx, px + ux * len / 2, py + uy * len / 2, u, v, len, 8);
			ctx.strokeStyle = pass ? '#fff' : '#000';
			ctx.lineWidth = pass ? 2.4 : 5;
			ctx.stroke();
		}
		ctx.beginPath();
		ctx.arc(px, py, 6, 0, 2 * Math.PI);
		ctx.fillStyle = rgb(ramp(SPEED_STOPS, o.speed / vref));
		ctx.fill();
		ctx.strokeStyle = '#000';
		ctx.lineWidth = 2;
		ctx.stroke();
		ctx.font = 'bold 12px system-ui, sans-serif';
		ctx.lineWidth = 3;
		ctx.strokeStyle = 'rgba(0,0,0,0.8)';
		ctx.strokeText(o.id, px + 9, py - 8);
		ctx.fillStyle = '#fff';
		ctx.fillText(o.id, px + 9, py - 8);
	}

	function drawScale() {
		const m = 110 / st.view.s, p = Math.pow(10, Math.floor(Math.log10(m)));
		const d = [5, 2, 1].map((k) => k * p).find((c) => c <= m) || p;
		$('scalebar').style.width = Math.round(d * st.view.s) + 'px';
		$('scaletext').textContent = d >= 1000 ? d / 1000 + ' km' : d + ' m';
	}

	function drawLegend() {
		const c = $('legend'), r = window.devicePixelRatio || 1, w = 276, h = 64;
		if (c.width !== w * r) {
			c.width = w * r;
			c.height = h * r;
		}
		const ctx = c.getContext('2d');
		ctx.setTransform(r, 0, 0, r, 0, 0);
		ctx.clearRect(0, 0, w, h);
		ctx.font = '11px system-ui, sans-serif';
		ctx.fillStyle = '#94a3b8';
		const bar = (y, stops, lo, hi, unit) => {
			for (let i = 0; i < w - 70; i++) {
				ctx.fillStyle = rgb(ramp(stops, i / (w - 71)));
				ctx.fillRect(i, y, 1, 10);
			}
			ctx.fillStyle = '#e2e8f0';
			ctx.fillText(lo, 0, y + 23);
			const t = String(hi);
			ctx.fillText(t, w - 70 - ctx.measureText(t).width, y + 23);
			ctx.fillText(unit, w - 64, y + 9);
		};
		if (st.slice)
			bar(2, SPEED_STOPS, 0, st.slice.vref, 'wind m/s');
		if (st.terrain)
			bar(34, GROUND_STOPS, Math.round(st.terrain.min), Math.round(st.terrain.max),
				'ground m');
	}

	function ramp(stops, t) {
		t = Math.min(Math.max(t, 0), 1);
		let k = 1;
		while (k < stops.length - 1 && stops[k][0] < t)
			k++;
		const [t0, a] = stops[k - 1], [t1, b] = stops[k], f = (t - t0) / (t1 - t0);
		return [0, 1, 2].map((i) => a[i] + (b[i] - a[i]) * f);
	}

	function rgb(c) {
		return 'rgb(' + c.map(Math.round).join(',') + ')';
	}

	/* ---------------------------------------------------------- streamlines */

	let flowFrame = 0;   // the pending animation frame: one loop at most
	function resetFlow() {
		const ctx = layer('flow');
		if (!$('streams').checked || !st.slice) {
			st.flow = null;
			return;
		}
		const [w, h] = mapSize(), n = Math.min(3000, Math.max(300, Math.round(w * h / 400)));
		st.flow = { ctx: ctx, particles: [] };
		for (let i = 0; i < n; i++)
			st.flow.particles.push(spawn({}));
		if (!flowFrame)
			flowFrame = requestAnimationFrame(stepFlow);
	}

	function spawn(p) {
		const [w, h] = mapSize();
		[p.x, p.y] = toWorld(Math.random() * w, Math.random() * h);
		p.age = Math.floor(Math.random() * 80);
		return p;
	}

	/* One frame: fade the trails, move every particle with the wind. */
	function stepFlow() {
		const f = st.flow;
		flowFrame = 0;
		if (!f || !$('streams').checked || !st.slice)
			return;
		if (!document.hidden) {
			const ctx = f.ctx, [w, h] = mapSize();
			ctx.globalCompositeOperation = 'destination-in';
			ctx.fillStyle = 'rgba(0,0,0,0.9)';
			ctx.fillRect(0, 0, w, h);
			ctx.globalCompositeOperation = 'source-over';
			ctx.strokeStyle = 'rgba(255,255,255,0.85)';
			ctx.lineWidth = 1.2;
			ctx.beginPath();
			const dt = 1.6 / (st.slice.vref * st.view.s);   // fastest: 1.6 px per frame
			for (const p of f.particles) {
				const uv = windAt(p.x, p.y);
				if (!uv || ++p.age > 100) {
					spawn(p);
					p.age = 0;
					continue;
				}
				const [ax, ay] = toScreen(p.x, p.y);
				p.x += uv[0] * dt;
				p.y += uv[1] * dt;
				const [bx, by] = toScreen(p.x, p.y);
				ctx.moveTo(ax, ay);
				ctx.lineTo(bx, by);
			}
			ctx.stroke();
		}
		flowFrame = requestAnimationFrame(stepFlow);
	}

	/* ------------------------------------------------------ point, profile */

	async function pickAt(x, y) {
		const g = st.grid;
		st.pick = { x: x, y: y };
		draw();
		if (!st.field || !g)
			return pointMessage('No field yet.', false);
		if (x < g.x0 || y < g.y0 || x > g.x0 + g.nx * g.dx || y > g.y0 + g.ny * g.dy)
			return pointMessage('Outside the domain.', true);
		if (groundAt(x, y) + st.z > g.top_altitude)
			return pointMessage(st.z + ' m above the ground is above the grid top (' +
				g.top_altitude.toFixed(0) + ' m).', true);
		const q = 'x=' + x.toFixed(1) + '&y=' + y.toFixed(1) + '&version=' + st.field.version;
		let pt, pr;
		try {
			[pt, pr] = await Promise.all([get('/v1/field/point?' + q + '&z=' + st.z),
				get('/v1/field/profile?' + q)]);
		} catch (e) {
			return pointMessage('westd does not answer: ' + e.message, true);
		}
		if (!st.pick || st.pick.x !== x || st.pick.y !== y)
			return;   // another click came meanwhile
		if (pt.status !== 200)
			pointMessage(pt.body.detail || 'no answer (' + pt.status + ')', true);
		else
			showPoint(pt.body);
		if (pr.status === 200)
			drawProfile(pr.body.levels);
		else
			$('profile').hidden = true;
	}

	function pointMessage(text, bad) {
		$('pointmsg').textContent = text;
		$('pointmsg').classList.toggle('bad', bad);
		$('pointvals').hidden = true;
		$('profile').hidden = true;
	}

	const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW',
		'W', 'WNW', 'NW', 'NNW'];

	function showPoint(p) {
		$('pointmsg').textContent = 'v' + p.version + ', at the point clicked:';
		$('pointmsg').classList.remove('bad');
		$('p-xy').textContent = p.x.toFixed(0) + ', ' + p.y.toFixed(0) + ' m';
		$('p-ground').textContent = p.ground.toFixed(1) + ' m';
		$('p-z').textContent = p.z_agl.toFixed(0) + ' m above ground (' + p.z_msl.toFixed(0) +
			' m)';
		$('p-speed').textContent = p.speed.toFixed(2) + ' m/s';
		$('p-dir').textContent = p.direction.toFixed(0) + '\u00b0 (from ' +
			COMPASS[Math.round(p.direction / 22.5) % 16] + ')';
		$('p-uvw').textContent = [p.u, p.v, p.w].map((c) => c.toFixed(2)).join(', ') + ' m/s';
		$('pointvals').hidden = false;
	}

	/* Speed against height above ground, with the direction as arrows. */
	function drawProfile(levels) {
		const c = $('profile'), r = window.devicePixelRatio || 1, w = 276, h = 200;
		c.hidden = false;
		if (c.width !== w * r) {
			c.width = w * r;
			c.height = h * r;
		}
		const ctx = c.getContext('2d');
		ctx.setTransform(r, 0, 0, r, 0, 0);
		ctx.clearRect(0, 0, w, h);
		const L = 38, R = w - 30, T = 8, B = h - 28;
		const za = axis(Math.max(...levels.map((l) => l.z_agl), 1));
		const sa = axis(Math.max(...levels.map((l) => l.speed), 1));
		const X = (s) => L + (R - L) * s / sa.max, Y = (z) => B - (B - T) * z / za.max;
		ctx.font = '10px system-ui, sans-serif';
		ctx.strokeStyle = '#334155';
		ctx.fillStyle = '#94a3b8';
		ctx.lineWidth = 1;
		for (let k = 0; k * za.step <= za.max * (1 + 1e-9); k++) {
			const z = k * za.step;
			ctx.beginPath();
			ctx.moveTo(L, Y(z));
			ctx.lineTo(R, Y(z));
			ctx.stroke();
			const t = String(+z.toFixed(1));
			ctx.fillText(t, L - 4 - ctx.measureText(t).width, Y(z) + 3);
		}
		for (let k = 0; k * sa.step <= sa.max * (1 + 1e-9); k++) {
			const v = k * sa.step;
			ctx.beginPath();
			ctx.moveTo(X(v), T);
			ctx.lineTo(X(v), B);
			ctx.stroke();
			const t = String(+v.toFixed(1));
			ctx.fillText(t, X(v) - ctx.measureText(t).width / 2, B + 12);
		}
		ctx.fillText('speed, m/s', (L + R) / 2 - 24, h - 3);
		ctx.save();
		ctx.translate(10, (T + B) / 2 + 30);
		ctx.rotate(-Math.PI / 2);
		ctx.fillText('m above ground', 0, 0);
		ctx.restore();
		ctx.setLineDash([4, 3]);
		ctx.strokeStyle = '#f0abfc';
		ctx.beginPath();
		ctx.moveTo(L, Y(st.z));
		ctx.lineTo(R, Y(st.z));
		ctx.stroke();
		ctx.setLineDash([]);
		ctx.strokeStyle = '#38bdf8';
		ctx.lineWidth = 2;
		ctx.beginPath();
		levels.forEach((l, k) => (k ? ctx.lineTo : ctx.moveTo).call(ctx, X(l.speed), Y(l.z_agl)));
		ctx.stroke();
		ctx.fillStyle = '#38bdf8';
		ctx.strokeStyle = '#e2e8f0';
		ctx.lineWidth = 1.2;
		const every = Math.max(1, Math.ceil(levels.length / 14));
		levels.forEach((l, k) => {
			ctx.beginPath();
			ctx.arc(X(l.speed), Y(l.z_agl), 2.2, 0, 2 * Math.PI);
			ctx.fill();
			if (k % every === 0) {
				ctx.beginPath();
				arrow(ctx, R + 15, Y(l.z_agl), l.u, l.v, 16, 4);
				ctx.stroke();
			}
		});
	}

	/* --------------------------------------------------------------- popup */

	function stationAt(px, py) {
		if (!$('showstations').checked)
			return null;
		let best = null, bd = 12;
		for (const o of st.stations) {
			const [sx, sy] = toScreen(o.x, o.y), d = Math.hypot(sx - px, sy - py);
			if (d < bd)
				best = o, bd = d;
		}
		return best;
	}

	function openPopup(o) {
		const p = $('popup');
		st.popup = o || null;
		if (!o) {
			p.hidden = true;
			return;
		}
		p.replaceChildren();
		const close = document.createElement('button');
		close.className = 'close';
		close.type = 'button';
		close.title = 'Close (Esc)';
		close.textContent = '\u00d7';
		close.addEventListener('click', () => openPopup(null));
		const h = document.createElement('h3');
		h.textContent = o.id;
		const rows = [['Position', o.x.toFixed(0) + ', ' + o.y.toFixed(0) + ' m'],
			['Height', o.height + ' m above ground'],
			['Speed', o.speed.toFixed(2) + ' m/s'],
			['Direction', o.direction.toFixed(0) + '\u00b0 (from ' +
				COMPASS[Math.round(o.direction / 22.5) % 16] + ')'],
			['Time', o.time.replace('T', ' ')]];
		if (o.stability)
			rows.push(['Stability', o.stability]);
		if (o.inv_L !== undefined)
			rows.push(['1/L', o.inv_L + ' 1/m']);
		if (o.z0 !== undefined)
			rows.push(['z0', o.z0 + ' m']);
		const table = document.createElement('table');
		for (const [k, v] of rows) {
			const tr = table.insertRow(), th = document.createElement('th');
			th.textContent = k;
			tr.appendChild(th);
			tr.insertCell().textContent = v;
		}
		p.append(close, h, table);
		p.hidden = false;
		placePopup();
	}

	function placePopup() {
		const p = $('popup'), o = st.popup, [w, h] = mapSize();
		const [px, py] = toScreen(o.x, o.y);
		p.style.left = Math.min(Math.max(px + 14, 4), w - p.offsetWidth - 4) + 'px';
		p.style.top = Math.min(Math.max(py + 14, 4), h - p.offsetHeight - 4) + 'px';
	}

	/* ------------------------------------------------------------- releases */

	function releaseMessage(text, bad) {
		$('r-status').textContent = text;
		$('r-status').classList.toggle('bad', !!bad);
	}

	function placing(on) {
		st.release.placing = on;
		$('r-place').setAttribute('aria-pressed', on ? 'true' : 'false');
		$('map').classList.toggle('placing', on);
	}

	async function postRelease(e) {
		e.preventDefault();
		const p = st.release.point, tok = $('r-token').value.trim();
		if (!p)
			return releaseMessage('Place the release point on the map first.', true);
		const body = { x: +p.x.toFixed(1), y: +p.y.toFixed(1) };
		for (const k of ['height', 'duration', 'hours', 'particles'])
			body[k] = Number($('r-' + k).value);
		const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
		if (tok)
			headers.Authorization = 'Bearer ' + tok;
		let r, j;
		try {
			r = await fetch('/v1/releases', { method: 'POST', headers: headers,
				body: JSON.stringify(body) });
			j = await r.json();
		} catch (err) {
			return releaseMessage('westd does not answer: ' + err.message, true);
		}
		if (r.status !== 202)
			return releaseMessage(j.detail || 'refused (' + r.status + ')', true);
		$('r-id').value = j.id;
		showRelease(j.id);
	}

	/* Follow release id until it is done (or failed), then draw it. */
	async function showRelease(id) {
		st.release.id = id;
		st.release.footprint = st.release.path = null;
		draw();
		for (;;) {
			let r;
			try {
				r = await get('/v1/releases/' + id);
			} catch (err) {
				return releaseMessage('westd does not answer: ' + err.message, true);
			}
			if (st.release.id !== id)
				return;   // another release was asked for meanwhile
			if (r.status !== 200)
				return releaseMessage(r.body.detail || 'no release ' + id, true);
			const b = r.body;
			if (b.status === 'failed')
				return releaseMessage('Release ' + id + ' failed: ' + b.error, true);
			if (b.status === 'done')
				return loadPlume(id, b);
			releaseMessage('Release ' + id + ' ' + b.status + ', ' +
				Math.round(100 * b.progress) + ' %', false);
			await new Promise((ok) => setTimeout(ok, RELEASE_MS));
		}
	}

	async function loadPlume(id, b) {
		const crs = st.crsId ? '?crs=' + encodeURIComponent(st.crsId) : '';
		const [f, t] = await Promise.all([get('/v1/releases/' + id + '/footprint' + crs),
			get('/v1/releases/' + id + '/trajectory' + crs)]);
		if (st.release.id !== id)
			return;
		if (f.status !== 200 || t.status !== 200)
			return releaseMessage((f.body || t.body).detail || 'no outputs', true);
		st.release.footprint = f.body;
		st.release.path = t.body;
		st.release.point = { x: b.release.x, y: b.release.y };
		releaseMessage('Release ' + id + ' on field v' + b.field_version + ': ' +
			b.particles + ' particles, ' + b.outside + ' left the domain; ' +
			b.release.height + ' m, ' + b.release.duration + ' s, ' + b.release.hours +
			' h simulated.', false);
		plumeLegend(f.body.features);
		draw();
	}

	function plumeLegend(features) {
		const ul = $('r-legend');
		ul.replaceChildren();
		features.forEach((f, k) => {
			const li = document.createElement('li'), sw = document.createElement('i');
			sw.style.background = rgb(PLUME_COLOURS[k % PLUME_COLOURS.length]);
			li.append(sw, '\u2265 ' + f.properties.level.toPrecision(2) + ' s/m\u00b3');
			ul.append(li);
		});
	}

	/* The footprint, lowest level first (the largest area), then the path. */
	function drawPlume(ctx) {
		const rel = st.release;
		if (!$('showplume').checked || !rel.footprint)
			return;
		rel.footprint.features.forEach((f, k) => {
			ctx.beginPath();
			for (const poly of f.geometry.coordinates)
				for (const ring of poly)
					ring.forEach((q, i) => {
						const [px, py] = toScreen(q[0], q[1]);
						(i ? ctx.lineTo : ctx.moveTo).call(ctx, px, py);
					});
			const c = PLUME_COLOURS[k % PLUME_COLOURS.length];
			ctx.fillStyle = 'rgba(' + c.join(',') + ',0.45)';
			ctx.fill('evenodd');
			ctx.strokeStyle = rgb(c);
			ctx.lineWidth = 1;
			ctx.stroke();
		});
		const g = rel.path && rel.path.geometry;
		if (!g)
			return;
		for (const pass of [0, 1]) {
			ctx.beginPath();
			g.coordinates.forEach((q, i) => {
				const [px, py] = toScreen(q[0], q[1]);
				(i ? ctx.lineTo : ctx.moveTo).call(ctx, px, py);
			});
			ctx.setLineDash(pass ? [6, 4] : []);
			ctx.strokeStyle = pass ? '#fff' : 'rgba(0,0,0,0.7)';
			ctx.lineWidth = pass ? 2 : 4;
			ctx.stroke();
		}
		ctx.setLineDash([]);
	}

	function drawReleasePoint(ctx, p) {
		const [px, py] = toScreen(p.x, p.y);
		ctx.beginPath();
		ctx.moveTo(px, py - 9);
		ctx.lineTo(px + 8, py + 6);
		ctx.lineTo(px - 8, py + 6);
		ctx.closePath();
		ctx.fillStyle = '#facc15';
		ctx.fill();
		ctx.strokeStyle = '#000';
		ctx.lineWidth = 2;
		ctx.stroke();
	}

	/* The grid's CRS as the footprint's crs= takes it: the wind
	 * collection's CRS that is not CRS84. */
	async function readCrs() {
		try {
			const c = await get('/collections/wind');
			if (c.status === 200)
				st.crsId = c.body.crs.find((k) => !/CRS84/.test(k)) || null;
		} catch (e) {
			/* the footprint then comes in CRS84, which the page cannot place */
		}
	}

	/* --------------------------------------------------------------- input */

	function listen() {
		const map = $('map');
		let down = null;
		map.addEventListener('pointerdown', (e) => {
			if (e.button !== 0 || e.target.closest('.tools, .popup'))
				return;
			down = { x: e.clientX, y: e.clientY, moved: false };
			try {
				map.setPointerCapture(e.pointerId);   // drags that leave the map
			} catch (err) {
				/* a synthetic event's pointer: no capture, the drag still works */
			}
		});
		map.addEventListener('pointermove', (e) => {
			const b = map.getBoundingClientRect();
			showCursor(e.clientX - b.left, e.clientY - b.top);
			if (!down || !st.view)
				return;
			const dx = e.clientX - down.x, dy = e.clientY - down.y;
			if (!down.moved && Math.hypot(dx, dy) < 4)
				return;
			down.moved = true;
			map.classList.add('dragging');
			pan(dx, dy);
			down.x = e.clientX;
			down.y = e.clientY;
		});
		map.addEventListener('pointerup', (e) => {
			if (!down)
				return;
			const b = map.getBoundingClientRect(), moved = down.moved;
			down = null;
			map.classList.remove('dragging');
			if (!moved && st.view)
				click(e.clientX - b.left, e.clientY - b.top);
		});
		map.addEventListener('pointerleave', () => { $('cursor').textContent = ''; });
		map.addEventListener('wheel', (e) => {
			e.preventDefault();
			const b = map.getBoundingClientRect();
			zoomAt(e.clientX - b.left, e.clientY - b.top, Math.exp(-e.deltaY * 0.0015));
		}, { passive: false });
		map.addEventListener('keydown', onKey);
		$('zoomin').addEventListener('click', () => zoomCentre(1.5));
		$('zoomout').addEventListener('click', () => zoomCentre(1 / 1.5));
		$('fit').addEventListener('click', fit);
		$('height').addEventListener('input', onHeight);
		for (const id of ['arrows', 'streams', 'showstations', 'showplume'])
			$(id).addEventListener('change', draw);
		$('r-place').addEventListener('click', () => placing(!st.release.placing));
		$('relform').addEventListener('submit', postRelease);
		$('r-showform').addEventListener('submit', (e) => {
			e.preventDefault();
			const id = parseInt($('r-id').value, 10);
			if (id > 0)
				showRelease(id);
		});
		new ResizeObserver(draw).observe(map);
		setInterval(showAge, 1000);
	}

	function zoomCentre(f) {
		const [w, h] = mapSize();
		zoomAt(w / 2, h / 2, f);
	}

	function onKey(e) {
		const [w, h] = mapSize(), k = e.key;
		if (!st.view)
			return;
		if (k === '+' || k === '=')
			zoomCentre(1.5);
		else if (k === '-')
			zoomCentre(1 / 1.5);
		else if (k === '0')
			fit();
		else if (k === 'Escape')
			openPopup(null);
		else if (k.startsWith('Arrow'))
			pan(k === 'ArrowLeft' ? w / 8 : k === 'ArrowRight' ? -w / 8 : 0,
				k === 'ArrowUp' ? h / 8 : k === 'ArrowDown' ? -h / 8 : 0);
		else
			return;
		e.preventDefault();
	}

	function click(px, py) {
		if (st.release.placing) {
			const [x, y] = toWorld(px, py);
			st.release.point = { x: x, y: y };
			$('r-point').textContent = 'x ' + x.toFixed(0) + ', y ' + y.toFixed(0) + ' m';
			placing(false);
			draw();
			return;
		}
		const o = stationAt(px, py);
		if (o) {
			openPopup(o);
			return;
		}
		openPopup(null);
		const [x, y] = toWorld(px, py);
		pickAt(x, y);
	}

	function showCursor(px, py) {
		if (!st.view)
			return;
		const [x, y] = toWorld(px, py), g = groundAt(x, y);
		$('cursor').textContent = 'x ' + x.toFixed(0) + '  y ' + y.toFixed(0) +
			(isNaN(g) ? '' : '  ground ' + g.toFixed(0) + ' m');
	}

	/* ---------------------------------------------------------------- start */

	async function start() {
		listen();
		try {
			const c = await get('/ui/config.json');
			if (c.status === 200)
				st.config = c.body;
		} catch (e) {
			/* the defaults stand; poll() reports a westd that does not answer */
		}
		await readCrs();
		poll();
	}

	/* For tests and curious operators: the state, and the view's mapping. */
	window.westdMap = { state: st, toScreen: toScreen, toWorld: toWorld };
	start();
}());
