/* Small json-c helpers shared by every resource writer. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <sodium.h>

#include "formback.h"

/*
 * Keys are string literals (api.h): json-c keeps the pointer instead of
 * a copy of each key of each row.
 */
static void
add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add_ex(o, k, v, JSON_C_OBJECT_KEY_IS_CONSTANT);
}

void
jadd_str(json_object *o, const char *k, const char *v)
{
	add(o, k, v != NULL ? json_object_new_string(v) : NULL);
}

void
jadd_int(json_object *o, const char *k, long long v)
{
	add(o, k, json_object_new_int64(v));
}

void
jadd_bool(json_object *o, const char *k, bool v)
{
	add(o, k, json_object_new_boolean(v));
}

const char *
time_out(const char *v, char t[32])
{
	if (v != NULL && strnlen(v, 19) == 19 && v[10] == ' ') {
		memcpy(t, v, 10);
		t[10] = 'T';
		memcpy(t + 11, v + 11, 8);
		t[19] = 'Z';
		t[20] = '\0';
		return t;
	}
	return v;
}

void
jadd_time(json_object *o, const char *k, const char *v)
{
	char	 t[32];

	jadd_str(o, k, time_out(v, t));
}

const char *
json_text(json_object *o)
{
	return json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * Whether the well-formed JSON text s[0..n) escapes a UTF-16 surrogate
 * that is not half of a pair: no character (RFC 8259 8.2; RFC 3629 3),
 * which json-c would take as U+FFFD.  A backslash stands only in a
 * string of well-formed JSON, always as an escape.
 */
static bool
lone_surrogate(const char *s, size_t n)
{
	const char	*p = s, *end = s + n, *q;
	unsigned char	 h[2];
	unsigned	 u;
	size_t		 len;
	bool		 high = false;	/* the escape before was a high half */

	while ((q = memchr(p, '\\', (size_t)(end - p))) != NULL) {
		if ((high && q != p) || end - q < 2)
			return true;
		if (q[1] != 'u') {
			if (high)
				return true;
			p = q + 2;
			continue;
		}
		if (end - q < 6 || sodium_hex2bin(h, sizeof(h), q + 2, 4, NULL,
		    &len, NULL) != 0 || len != sizeof(h))
			return true;
		u = (unsigned)h[0] << 8 | h[1];
		p = q + 6;
		if (u >= 0xdc00 && u <= 0xdfff) {
			if (!high)
				return true;
			high = false;
		} else if (high)
			return true;
		else
			high = u >= 0xd800 && u <= 0xdbff;
	}
	return high;
}

/*
 * Whether every number in o is finite.  json-c takes NaN, Infinity and
 * -Infinity, which are no JSON (RFC 8259 6), and a number past a double's
 * range (1e400) as an infinity, which RFC 8259 9 lets a parser refuse;
 * either would be written back as no JSON (an audit row's detail, a
 * stored value).  Recursion as deep as the parser's limit.
 */
static bool
finite_numbers(json_object *o)
{
	size_t	 i, n;

	switch (json_object_get_type(o)) {
	case json_type_double:
		return isfinite(json_object_get_double(o));
	case json_type_array:
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			if (!finite_numbers(json_object_array_get_idx(o, i)))
				return false;
		return true;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			if (!finite_numbers(v))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

json_object *
json_parse_object(const char *s, size_t n, int depth)
{
	struct json_tokener	*tok;
	json_object		*o;
	size_t			 i;

	if (n > INT32_MAX || (tok = json_tokener_new_ex(depth)) == NULL)
		return NULL;
	json_tokener_set_flags(tok,
	    JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = n > 0 ? json_tokener_parse_ex(tok, s, (int)n) : NULL;
	if (o != NULL && json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
	}
	/* only white space after the value */
	for (i = o != NULL ? json_tokener_get_parse_end(tok) : n; i < n &&
	    isspace((unsigned char)s[i]); i++)
		continue;
	json_tokener_free(tok);
	if (o != NULL && (i < n || !json_object_is_type(o, json_type_object) ||
	    lone_surrogate(s, n) || !finite_numbers(o))) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

/*
 * The streaming writer (kcgi's kcgijson writes the same way): every piece
 * goes straight into the struct buf, a string reserved for at once and
 * scanned 16 bytes at a time for what RFC 8259 7 says to escape.
 * The first error sticks and every later call does nothing.
 */

/* The escape of each byte: 0 none, 'u' as \u00XX, else \ and the byte. */
static const char jesc[256] = {
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	['"'] = '"', ['\\'] = '\\',
};

static void
jg_fail(struct jgen *j, enum fb_err e)
{
	if (j->err == FB_OK)
		j->err = e;
}

/* Room for n more bytes at the end of the output, or the error sticks. */
static bool
jg_room(struct jgen *j, size_t n)
{
	if (j->err != FB_OK)
		return false;
	if (buf_reserve(j->out, n) != FB_OK) {
		jg_fail(j, FB_ENOMEM);
		return false;
	}
	return true;
}

static inline void
jg_put(struct jgen *j, const char *s, size_t n)
{
	if (j->err == FB_OK && buf_add(j->out, s, n) != FB_OK)
		jg_fail(j, FB_ENOMEM);
}

/*
 * Whether one of the 16 bytes of lo and hi needs an escape (RFC 8259 7:
 * '"', '\\' or one below 0x20): with SSE2 (every x86-64) as one vector,
 * a byte below 0x20 being one its unsigned minimum with 0x1f leaves as
 * it is; else a word at a time, by the "has zero byte" and "has less
 * than" bit tricks of Hacker's Delight 6-1.
 */
static inline bool
jg_special(uint64_t lo, uint64_t hi)
{
#ifdef __SSE2__
	const __m128i	 v = _mm_set_epi64x((long long)hi, (long long)lo);
	const __m128i	 ctl = _mm_cmpeq_epi8(_mm_min_epu8(v,
			    _mm_set1_epi8(0x1f)), v);
	const __m128i	 q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
	const __m128i	 e = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));

	return _mm_movemask_epi8(_mm_or_si128(ctl, _mm_or_si128(q, e))) != 0;
#else
	const uint64_t	 ones = 0x0101010101010101ULL, highs = ones << 7;
	uint64_t	 w, q, e;
	int		 k;

	for (k = 0, w = lo; k < 2; k++, w = hi) {
		q = w ^ (ones * '"');
		e = w ^ (ones * '\\');
		if (((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) |
		    ((e - ones) & ~e)) & highs) != 0)
			return true;
	}
	return false;
#endif
}

/*
 * How many bytes s[0..n) begins with that need no escape, 16 at a time,
 * every load inside s: whole blocks, then the last 16 bytes (overlapping
 * the blocks seen: a byte looked at twice changes nothing); a shorter
 * string as two overlapping words, two overlapping halves, or its first,
 * middle and last bytes, padded with spaces, which need none.  A block
 * with an escape is looked at again byte by byte.
 */
static size_t
jg_plain(const unsigned char *s, size_t n)
{
	uint64_t	 lo, hi = 0x2020202020202020ULL;
	uint32_t	 a, b;
	size_t		 i = 0;

	if (n >= 16) {
		for (; i + 16 <= n; i += 16) {
			memcpy(&lo, s + i, 8);
			memcpy(&hi, s + i + 8, 8);
			if (jg_special(lo, hi))
				goto bytes;
		}
		if (i == n)
			return n;
		memcpy(&lo, s + n - 16, 8);
		memcpy(&hi, s + n - 8, 8);
	} else if (n >= 8) {
		memcpy(&lo, s, 8);
		memcpy(&hi, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		lo = (uint64_t)a | (uint64_t)b << 32;
	} else if (n > 0)
		lo = 0x2020202020000000ULL | (uint64_t)s[0] |
		    (uint64_t)s[n / 2] << 8 | (uint64_t)s[n - 1] << 16;
	else
		return 0;
	if (!jg_special(lo, hi))
		return n;
bytes:
	while (i < n && jesc[s[i]] == 0)
		i++;
	return i;
}

/* s[0..n) as a JSON string, quoted and escaped (RFC 8259 7). */
static void
jg_string(struct jgen *j, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	struct buf	*b = j->out;
	size_t		 i = 0, run;
	char		*p;

	/* the common case, nothing to escape: one reservation, one copy */
	if (!jg_room(j, n + 2))
		return;
	b->data[b->len++] = '"';
	for (;;) {
		run = jg_plain(u + i, n - i);
		memcpy(b->data + b->len, s + i, run);
		b->len += run;
		if ((i += run) == n)
			break;
		/*
		 * an escape: up to 6 bytes for 1, then the rest and the quote
		 */
		if (!jg_room(j, 6 + (n - i - 1) + 1))
			return;
		p = b->data + b->len;
		*p++ = '\\';
		if ((*p++ = jesc[u[i]]) == 'u') {
			*p++ = '0';
			*p++ = '0';
			*p++ = hex[u[i] >> 4];
			*p++ = hex[u[i] & 0xf];
		}
		b->len = (size_t)(p - b->data);
		i++;
	}
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

/*
 * Begin a value at the current place: the separator, and the key inside
 * an object (none inside an array, or at the top, where one value only
 * may be written).  Returns false when the value must not be written.
 */
static bool
jg_value(struct jgen *j, const char *key)
{
	uint32_t	 bit;
	size_t		 n;
	char		*p;

	if (j->err != FB_OK)
		return false;
	if (j->depth == 0) {
		if (key != NULL || j->done) {
			jg_fail(j, FB_EINVAL);
			return false;
		}
		j->done = true;
		return true;
	}
	bit = 1u << (j->depth - 1);
	if ((key == NULL) != ((j->arrays & bit) != 0)) {
		jg_fail(j, FB_EINVAL);
		return false;
	}
	/* the separator and a key that needs no escape in one write */
	n = key != NULL ? strlen(key) : 0;
	if (n > 0 && jg_plain((const unsigned char *)key, n) < n) {
		if (j->members & bit)
			jg_put(j, ",", 1);
		j->members |= bit;
		jg_string(j, key, n);
		jg_put(j, ":", 1);
		return j->err == FB_OK;
	}
	if (!jg_room(j, n + 4))
		return false;
	p = j->out->data + j->out->len;
	if (j->members & bit)
		*p++ = ',';
	j->members |= bit;
	if (key != NULL) {
		*p++ = '"';
		memcpy(p, key, n);
		p += n;
		*p++ = '"';
		*p++ = ':';
	}
	*p = '\0';
	j->out->len = (size_t)(p - j->out->data);
	return true;
}

/* Open an object or an array as the next value. */
static void
jg_open(struct jgen *j, const char *key, bool array)
{
	uint32_t	 bit;

	if (!jg_value(j, key))
		return;
	if (j->depth == JGEN_DEPTH_MAX) {
		jg_fail(j, FB_EINVAL);
		return;
	}
	bit = 1u << j->depth++;
	j->members &= ~bit;
	if (array)
		j->arrays |= bit;
	else
		j->arrays &= ~bit;
	jg_put(j, array ? "[" : "{", 1);
}

static void
jg_close(struct jgen *j, bool array)
{
	if (j->err != FB_OK)
		return;
	if (j->depth == 0 ||
	    ((j->arrays & (1u << (j->depth - 1))) != 0) != array) {
		jg_fail(j, FB_EINVAL);
		return;
	}
	j->depth--;
	jg_put(j, array ? "]" : "}", 1);
}

void
jgen_begin(struct jgen *j, struct buf *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->err = FB_OK;
}

enum fb_err
jgen_end(struct jgen *j)
{
	if (j->err == FB_OK && (j->depth != 0 || !j->done))
		j->err = FB_EINVAL;
	return j->err;
}

void
jg_obj(struct jgen *j, const char *key)
{
	jg_open(j, key, false);
}

void
jg_obj_end(struct jgen *j)
{
	jg_close(j, false);
}

void
jg_arr(struct jgen *j, const char *key)
{
	jg_open(j, key, true);
}

void
jg_arr_end(struct jgen *j)
{
	jg_close(j, true);
}

void
jg_text(struct jgen *j, const char *key, const char *v, size_t n)
{
	if (!jg_value(j, key))
		return;
	if (v != NULL)
		jg_string(j, v, n);
	else
		jg_put(j, "null", 4);
}

void
jg_str(struct jgen *j, const char *key, const char *v)
{
	jg_text(j, key, v, v != NULL ? strlen(v) : 0);
}

void
jg_int(struct jgen *j, const char *key, long long v)
{
	char			 t[24], *p = t + sizeof(t);
	unsigned long long	 u = v < 0 ? 0ULL - (unsigned long long)v :
				    (unsigned long long)v;

	if (!jg_value(j, key))
		return;
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	jg_put(j, p, (size_t)(t + sizeof(t) - p));
}

void
jg_number(struct jgen *j, const char *key, const char *text)
{
	if (jg_value(j, key))
		jg_put(j, text, strlen(text));
}

void
jg_raw(struct jgen *j, const char *key, const char *text)
{
	if (jg_value(j, key))
		jg_put(j, text != NULL ? text : "null", text != NULL ?
		    strlen(text) : 4);
}

void
jg_bool(struct jgen *j, const char *key, bool v)
{
	if (jg_value(j, key))
		jg_put(j, v ? "true" : "false", v ? 4 : 5);
}

void
jg_time(struct jgen *j, const char *key, const char *v)
{
	char		 t[32];
	const char	*o = time_out(v, t);

	/* time_out() writes 20 characters */
	jg_text(j, key, o, o == t ? 20 : o != NULL ? strlen(o) : 0);
}

void
jg_json(struct jgen *j, const char *key, json_object *v)
{
	size_t		 i, n;

	switch (json_object_get_type(v)) {
	case json_type_null:
		jg_str(j, key, NULL);
		break;
	case json_type_boolean:
		jg_bool(j, key, json_object_get_boolean(v));
		break;
	case json_type_int:
		jg_int(j, key, json_object_get_int64(v));
		break;
	case json_type_double:
		/* as json-c writes it: the text is the value */
		jg_number(j, key, json_object_to_json_string(v));
		break;
	case json_type_string:
		if (jg_value(j, key))
			jg_string(j, json_object_get_string(v),
			    (size_t)json_object_get_string_len(v));
		break;
	case json_type_array:
		jg_arr(j, key);
		for (i = 0, n = json_object_array_length(v); i < n; i++)
			jg_json(j, NULL, json_object_array_get_idx(v, i));
		jg_arr_end(j);
		break;
	case json_type_object:
		jg_obj(j, key);
		json_object_object_foreach(v, k, m)
			jg_json(j, k, m);
		jg_obj_end(j);
		break;
	}
}
