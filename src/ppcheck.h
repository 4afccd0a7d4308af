/*
 * Privacy-policy checks (ppcheck.c; contract: Endpoints, Sites,
 * pp-checks; issue 14; formback.fcgi(8) "Privacy-policy checks"): what a
 * shop's privacy policy must disclose for Formback to run on its forms,
 * judged on the page's text.
 */
#ifndef FORMBACK_PPCHECK_H
#define FORMBACK_PPCHECK_H

#include "formback.h"

/*
 * Judge a fetched privacy-policy page (the bytes as served, HTML or
 * text, UTF-8; at most the first PP_PAGE_MAX bytes are read) for a
 * tenant in consent mode `mode` ("none", "notice_optout", "explicit").
 * The page must say, in Japanese or English words a shop would use, that
 * form input is collected before it is sent, that follow-up SMS and
 * email may be sent, and how to stop them (the last only recommended in
 * explicit mode, where the form asks first); an http:// page is a
 * recommendation too.  Appends one {"code","severity","message"} per
 * missing item to `findings` (a json-c array the caller owns; message in
 * Japanese) and returns "passed" when nothing required is missing, else
 * "failed" (static strings).
 */
#define PP_PAGE_MAX	(1024 * 1024)
const char	*pp_judge(const char *page, size_t n, const char *mode,
		    const char *url, json_object *findings);

#endif
