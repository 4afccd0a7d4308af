// The Go service a user might write instead of Formback, for scripts/bench
// (issue 13): net/http and database/sql with Debian's MySQL driver over
// Formback's own tables, answering GET /api/v1/sites/{id} and
// GET /api/v1/leads?limit=N with the bodies formback.fcgi writes (the
// bench compares them byte for byte).  Each request does the work
// Formback's does: the API key looked up by its hash, then the page; the
// list's next_cursor is signed as Formback signs it (src/page.c).  The
// list's SQL is Formback's (the nested names joined by primary key, the
// leads walked by leads_tenant: without FORCE INDEX MariaDB sorted the
// tenant's leads).
//
// Built offline with Debian's packages:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o peer-go peer.go
//
// Environment: PEER_ADDR (127.0.0.1:port), PEER_DSN (a go-sql-driver DSN),
// PEER_POOL (open connections, default 32), PEER_BASE_URL (Formback's
// base_url), PEER_CURSOR_KEY (hex of the cursor subkey Formback derives
// from its master key).
package main

import (
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"

	_ "github.com/go-sql-driver/mysql"
	"golang.org/x/crypto/blake2b"
)

var (
	db        *sql.DB
	stmtAuth  *sql.Stmt
	stmtSite  *sql.Stmt
	stmtLeads *sql.Stmt
	baseURL   string
	cursorKey []byte
)

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as yajl escapes it.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func appendNullString(b []byte, s sql.NullString) []byte {
	if !s.Valid {
		return append(b, "null"...)
	}
	return appendString(b, s.String)
}

// appendTime writes a DATETIME(6) column as "YYYY-MM-DDTHH:MM:SSZ".
func appendTime(b []byte, s sql.NullString) []byte {
	if !s.Valid || len(s.String) < 19 {
		return appendNullString(b, s)
	}
	b = append(b, '"')
	b = append(b, s.String[:10]...)
	b = append(b, 'T')
	b = append(b, s.String[11:19]...)
	return append(b, 'Z', '"')
}

// tenant answers the tenant of the request's bearer key, or "".
func tenant(r *http.Request) (string, error) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	h := blake2b.Sum256([]byte(tok))
	var t, status string
	var revoked bool
	err := stmtAuth.QueryRow(h[:]).Scan(&t, &revoked, &status)
	if err == sql.ErrNoRows || revoked || status != "active" {
		return "", nil
	}
	return t, err
}

func fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write([]byte(`{"error":{"code":"` + code + `"}}`))
}

type snippetCampaign struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

func site(w http.ResponseWriter, r *http.Request) {
	t, err := tenant(r)
	if err != nil {
		fail(w, 500, "internal_error")
		return
	}
	if t == "" {
		fail(w, 401, "api_key_invalid")
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/api/v1/sites/")
	var sid, name, domain, pk string
	var created, updated, held, snippets sql.NullString
	err = stmtSite.QueryRow(t, id).Scan(&sid, &name, &domain, &pk, &created,
		&updated, &held, &snippets)
	if err == sql.ErrNoRows {
		fail(w, 404, "not_found")
		return
	} else if err != nil {
		fail(w, 500, "internal_error")
		return
	}
	var camps []snippetCampaign
	if snippets.Valid {
		json.Unmarshal([]byte(snippets.String), &camps)
	}
	b := make([]byte, 0, 1024)
	b = append(b, `{"id":`...)
	b = appendString(b, sid)
	b = append(b, `,"object":"site","name":`...)
	b = appendString(b, name)
	b = append(b, `,"domain":`...)
	b = appendString(b, domain)
	b = append(b, `,"public_key":`...)
	b = appendString(b, pk)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, created)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, updated)
	b = append(b, `,"sending_held_at":`...)
	b = appendTime(b, held)
	b = append(b, `,"tag_url":`...)
	b = appendString(b, baseURL+"/tag.js")
	b = append(b, `,"snippets":[`...)
	for i, c := range camps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"campaign_id":`...)
		b = appendString(b, c.ID)
		b = append(b, `,"campaign_key":`...)
		b = appendString(b, c.Key)
		b = append(b, `,"campaign_name":`...)
		b = appendString(b, c.Name)
		b = append(b, `,"html":`...)
		b = appendString(b, `<script async src="`+baseURL+`/tag.js" data-site="`+
			pk+`" data-campaign="`+c.Key+`"></script>`)
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// cursor signs the last id shown as src/page.c does for an unfiltered list.
func cursor(tenantID, last string) string {
	scope := "listLeads\n" + tenantID +
		"\nsite_id!\ncampaign_id!\nstatus!\ndate_field!\nfrom!\nto!"
	raw := make([]byte, 0, 37)
	th, _ := blake2b.New(4, nil)
	th.Write([]byte(scope))
	raw = append(raw, 2)
	raw = th.Sum(raw)
	u, _ := hex.DecodeString(strings.ReplaceAll(last, "-", ""))
	raw = append(raw, u...)
	mac, _ := blake2b.New(16, cursorKey)
	mac.Write(raw)
	mac.Write([]byte(scope))
	raw = mac.Sum(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}

func leads(w http.ResponseWriter, r *http.Request) {
	t, err := tenant(r)
	if err != nil {
		fail(w, 500, "internal_error")
		return
	}
	if t == "" {
		fail(w, 401, "api_key_invalid")
		return
	}
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 200 {
			fail(w, 400, "parameter_invalid")
			return
		}
	}
	rows, err := stmtLeads.Query(t, limit+1)
	if err != nil {
		fail(w, 500, "internal_error")
		return
	}
	defer rows.Close()
	b := make([]byte, 0, 700*limit+256)
	b = append(b, `{"object":"list","data":[`...)
	var n int
	var last string
	more := false
	for rows.Next() {
		var id, status, consent, pii sql.NullString
		var siteID, siteName, siteDomain, campID, campKey, campName sql.NullString
		var email, tel, telKind, convSource, suppReason sql.NullString
		var created, captured, abandoned, converted sql.NullString
		var sms bool
		if err := rows.Scan(&id, &siteID, &siteName, &siteDomain, &campID,
			&campKey, &campName, &status, &consent, &email, &tel, &pii,
			&telKind, &sms, &created, &captured, &abandoned, &converted,
			&convSource, &suppReason); err != nil {
			fail(w, 500, "internal_error")
			return
		}
		if n == limit {
			more = true
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		last = id.String
		b = append(b, `{"id":`...)
		b = appendNullString(b, id)
		b = append(b, `,"object":"lead","site":{"id":`...)
		b = appendNullString(b, siteID)
		b = append(b, `,"name":`...)
		b = appendNullString(b, siteName)
		b = append(b, `,"domain":`...)
		b = appendNullString(b, siteDomain)
		b = append(b, `},"campaign":{"id":`...)
		b = appendNullString(b, campID)
		b = append(b, `,"key":`...)
		b = appendNullString(b, campKey)
		b = append(b, `,"name":`...)
		b = appendNullString(b, campName)
		b = append(b, `},"status":`...)
		b = appendNullString(b, status)
		b = append(b, `,"consent_state":`...)
		b = appendNullString(b, consent)
		b = append(b, `,"email_masked":`...)
		b = appendNullString(b, email)
		b = append(b, `,"tel_masked":`...)
		b = appendNullString(b, tel)
		b = append(b, `,"pii_state":`...)
		b = appendNullString(b, pii)
		b = append(b, `,"tel_kind":`...)
		b = appendNullString(b, telKind)
		b = append(b, `,"sms_capable":`...)
		b = strconv.AppendBool(b, sms)
		b = append(b, `,"created_at":`...)
		b = appendTime(b, created)
		b = append(b, `,"captured_at":`...)
		b = appendTime(b, captured)
		b = append(b, `,"abandoned_at":`...)
		b = appendTime(b, abandoned)
		b = append(b, `,"converted_at":`...)
		b = appendTime(b, converted)
		b = append(b, `,"conversion_source":`...)
		b = appendNullString(b, convSource)
		b = append(b, `,"suppress_reason":`...)
		b = appendNullString(b, suppReason)
		b = append(b, '}')
	}
	if err := rows.Err(); err != nil {
		fail(w, 500, "internal_error")
		return
	}
	b = append(b, `],"date_field":"created_at","next_cursor":`...)
	if more {
		b = appendString(b, cursor(t, last))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, more)
	b = append(b, '}')
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func main() {
	var err error
	if cursorKey, err = hex.DecodeString(os.Getenv("PEER_CURSOR_KEY")); err != nil {
		log.Fatal(err)
	}
	baseURL = os.Getenv("PEER_BASE_URL")
	if db, err = sql.Open("mysql", os.Getenv("PEER_DSN")); err != nil {
		log.Fatal(err)
	}
	pool := 32
	if v := os.Getenv("PEER_POOL"); v != "" {
		pool, _ = strconv.Atoi(v)
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	if stmtAuth, err = db.Prepare(`SELECT k.tenant_id, k.revoked_at IS NOT NULL,
	    m.status FROM api_keys k JOIN members m ON m.id = k.member_id
	    WHERE k.key_hash = ?`); err != nil {
		log.Fatal(err)
	}
	if stmtSite, err = db.Prepare(`SELECT id, name, domain, public_key,
	    created_at, updated_at, sending_held_at, snippet_campaigns FROM sites
	    WHERE tenant_id = ? AND id = ?`); err != nil {
		log.Fatal(err)
	}
	if stmtLeads, err = db.Prepare(`SELECT l.id, l.site_id, s.name, s.domain, l.campaign_id,
	    c.campaign_key, c.name, l.status, l.consent_state,
	    l.email_masked, l.tel_masked, l.pii_state, l.tel_kind, l.sms_capable,
	    l.created_at, l.captured_at, l.abandoned_at, l.converted_at,
	    l.conversion_source, l.suppress_reason
	    FROM leads l FORCE INDEX (leads_tenant)
	    LEFT JOIN sites s ON s.id = l.site_id
	    LEFT JOIN campaigns c ON c.id = l.campaign_id
	    WHERE l.tenant_id = ? ORDER BY l.id DESC LIMIT ?`); err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/api/v1/sites/", site)
	http.HandleFunc("/api/v1/leads", leads)
	log.Fatal(http.ListenAndServe(os.Getenv("PEER_ADDR"), nil))
}
