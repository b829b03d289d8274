/*
 * proj.c: transverse Mercator on the WGS 84 ellipsoid (proj.h).
 *
 * Source: C. F. F. Karney, "Transverse Mercator with an accuracy of a few
 * nanometers", J. Geodesy 85(8), 475-485 (2011), doi:10.1007/s00190-011-0445-3:
 * the Krüger series in the third flattening n, to order n^6, as PROJ's
 * "etmerc"/"utm" and GeographicLib's TransverseMercator use them.
 *
 *   forward: geographic latitude phi -> conformal latitude through
 *     tau = tan(phi), sigma = sinh(e atanh(e tau / sqrt(1 + tau^2))),
 *     tau' = tau sqrt(1 + sigma^2) - sigma sqrt(1 + tau^2);
 *   then the spherical TM  xi' = atan2(tau', cos lam),
 *     eta' = asinh(sin lam / sqrt(tau'^2 + cos^2 lam));
 *   then Krüger:  xi = xi' + sum_j alpha_j sin(2j xi') cosh(2j eta'),
 *                 eta = eta' + sum_j alpha_j cos(2j xi') sinh(2j eta');
 *   x = FE + k0 A eta,  y = FN + k0 (A xi - A xi0),  A the rectifying
 *   radius a/(1+n) (1 + n^2/4 + n^4/64 + n^6/256), xi0 the xi of (lat0, lon0).
 *   inverse: the same steps backwards with the beta_j series, and tau from
 *   tau' by Newton's method (Karney 2011, eqs. on "conformal latitude").
 *
 * Karney gives the n^6 series an error under 5 nm within 3900 km of the
 * central meridian; 35 degrees of longitude (WEST_TM_MAX_DLON) is at most
 * 3896 km, so every point accepted here is inside that bound.  Farther
 * points are refused: no station on a local grid is so far off.
 *
 * Units: degrees at the interface, radians inside, metres for x and y.
 */
#include "proj.h"

#include <math.h>

#define WGS84_A 6378137.0
#define WGS84_F (1.0 / 298.257223563)
#define DEG (M_PI / 180.0)

struct tm_consts {
	double e;            /* first eccentricity */
	double A;            /* rectifying radius (m) */
	double alpha[7];     /* forward Krüger coefficients, [1..6] */
	double beta[7];      /* inverse Krüger coefficients, [1..6] */
};

static void tm_consts_init(struct tm_consts *c)
{
	double n = WGS84_F / (2.0 - WGS84_F);
	double n2 = n * n, n3 = n2 * n, n4 = n3 * n, n5 = n4 * n, n6 = n5 * n;

	c->e = sqrt(WGS84_F * (2.0 - WGS84_F));
	c->A = WGS84_A / (1.0 + n) * (1.0 + n2 / 4.0 + n4 / 64.0 + n6 / 256.0);
	c->alpha[1] = n / 2 - 2 * n2 / 3 + 5 * n3 / 16 + 41 * n4 / 180
		- 127 * n5 / 288 + 7891 * n6 / 37800;
	c->alpha[2] = 13 * n2 / 48 - 3 * n3 / 5 + 557 * n4 / 1440
		+ 281 * n5 / 630 - 1983433 * n6 / 1935360;
	c->alpha[3] = 61 * n3 / 240 - 103 * n4 / 140 + 15061 * n5 / 26880
		+ 167603 * n6 / 181440;
	c->alpha[4] = 49561 * n4 / 161280 - 179 * n5 / 168 + 6601661 * n6 / 7257600;
	c->alpha[5] = 34729 * n5 / 80640 - 3418889 * n6 / 1995840;
	c->alpha[6] = 212378941 * n6 / 319334400;
	c->beta[1] = n / 2 - 2 * n2 / 3 + 37 * n3 / 96 - n4 / 360
		- 81 * n5 / 512 + 96199 * n6 / 604800;
	c->beta[2] = n2 / 48 + n3 / 15 - 437 * n4 / 1440 + 46 * n5 / 105
		- 1118711 * n6 / 3870720;
	c->beta[3] = 17 * n3 / 480 - 37 * n4 / 840 - 209 * n5 / 4480
		+ 5569 * n6 / 90720;
	c->beta[4] = 4397 * n4 / 161280 - 11 * n5 / 504 - 830251 * n6 / 7257600;
	c->beta[5] = 4583 * n5 / 161280 - 108847 * n6 / 3991680;
	c->beta[6] = 20648693 * n6 / 638668800;
}

/* Longitude difference wrapped to [-180, 180] degrees. */
static double wrap180(double d)
{
	d = fmod(d, 360.0);
	if (d > 180.0)
		d -= 360.0;
	else if (d < -180.0)
		d += 360.0;
	return d;
}

/* tau' (tangent of the conformal latitude) from tau = tan(phi). */
static double conformal_tau(double tau, double e)
{
	double s = sinh(e * atanh(e * tau / hypot(1.0, tau)));

	return tau * hypot(1.0, s) - s * hypot(1.0, tau);
}

/* tau from tau' by Newton's method (converges in 2 or 3 steps). */
static double geographic_tau(double taup, double e)
{
	double e2m = 1.0 - e * e, tau = taup;

	for (int i = 0; i < 10; i++) {
		double tp = conformal_tau(tau, e);
		double d = (taup - tp) / hypot(1.0, tp) *
			(1.0 + e2m * tau * tau) / (e2m * hypot(1.0, tau));
		tau += d;
		if (fabs(d) <= 1e-14 * fmax(1.0, fabs(tau)))
			break;
	}
	return tau;
}

/* Apply a Krüger series: (xi, eta) += sgn * sum c_j (sin, cos) terms. */
static void kruger(const double c[7], double sgn, double *xi, double *eta)
{
	double x = *xi, h = *eta, dx = 0.0, dh = 0.0;

	for (int j = 1; j <= 6; j++) {
		dx += c[j] * sin(2 * j * x) * cosh(2 * j * h);
		dh += c[j] * cos(2 * j * x) * sinh(2 * j * h);
	}
	*xi = x + sgn * dx;
	*eta = h + sgn * dh;
}

/* Ellipsoidal (xi, eta) of latitude phi, longitude lam from lon0 (rad). */
static void forward_xi_eta(const struct tm_consts *c, double phi, double lam,
			   double *xi, double *eta)
{
	double taup = conformal_tau(tan(phi), c->e);

	if (fabs(phi) == M_PI / 2)
		taup = copysign(INFINITY, phi);
	*xi = atan2(taup, cos(lam));
	*eta = asinh(sin(lam) / hypot(taup, cos(lam)));
	kruger(c->alpha, 1.0, xi, eta);
}

const char *west_crs_no_lonlat(const struct west_crs *crs)
{
	return crs->tm_other_ellipsoid ?
	       "the terrain's transverse Mercator CRS is on another ellipsoid than WGS 84's" :
	       "the terrain has no transverse Mercator CRS";
}

int west_tm_params_ok(const struct west_crs *crs)
{
	return crs->k0 > 0.0 && isfinite(crs->k0) && fabs(crs->lat0) <= 90.0 &&
	       isfinite(crs->lon0) && isfinite(crs->false_easting) &&
	       isfinite(crs->false_northing);
}

static enum west_status check_crs(const struct west_crs *crs, char *err, size_t errlen)
{
	if (!crs->has_tm)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "the CRS has no transverse Mercator parameters");
	if (!west_tm_params_ok(crs))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "transverse Mercator parameters out of range "
				 "(k0 %g, lat0 %g, lon0 %g)", crs->k0, crs->lat0, crs->lon0);
	return WEST_OK;
}

enum west_status west_tm_forward(const struct west_crs *crs, double lon, double lat,
				 double *x, double *y, char *err, size_t errlen)
{
	struct tm_consts c;
	double xi, eta, xi0, eta0, dlon;

	if (check_crs(crs, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (!(fabs(lat) <= 90.0) || !(fabs(lon) <= 180.0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "longitude %g, latitude %g: outside [-180, 180] x [-90, 90]",
				 lon, lat);
	dlon = wrap180(lon - crs->lon0);
	if (fabs(dlon) > WEST_TM_MAX_DLON)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "longitude %g is %.1f degrees from the central meridian %g "
				 "(at most %g)", lon, fabs(dlon), crs->lon0, WEST_TM_MAX_DLON);
	tm_consts_init(&c);
	forward_xi_eta(&c, lat * DEG, dlon * DEG, &xi, &eta);
	forward_xi_eta(&c, crs->lat0 * DEG, 0.0, &xi0, &eta0);
	*x = crs->false_easting + crs->k0 * c.A * eta;
	*y = crs->false_northing + crs->k0 * c.A * (xi - xi0);
	return WEST_OK;
}

enum west_status west_tm_inverse(const struct west_crs *crs, double x, double y,
				 double *lon, double *lat, char *err, size_t errlen)
{
	struct tm_consts c;
	double xi, eta, xi0, eta0, taup, lam;

	if (check_crs(crs, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (!isfinite(x) || !isfinite(y))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "x %g, y %g: not finite", x, y);
	tm_consts_init(&c);
	forward_xi_eta(&c, crs->lat0 * DEG, 0.0, &xi0, &eta0);
	xi = (y - crs->false_northing) / (crs->k0 * c.A) + xi0;
	eta = (x - crs->false_easting) / (crs->k0 * c.A);
	kruger(c.beta, -1.0, &xi, &eta);
	taup = sin(xi) / hypot(sinh(eta), cos(xi));
	lam = atan2(sinh(eta), cos(xi)) / DEG;
	if (!(fabs(lam) <= WEST_TM_MAX_DLON))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "x %.3f, y %.3f: farther than %g degrees from the "
				 "central meridian", x, y, WEST_TM_MAX_DLON);
	*lat = atan(geographic_tau(taup, c.e)) / DEG;
	*lon = wrap180(crs->lon0 + lam);
	return WEST_OK;
}
