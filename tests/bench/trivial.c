/*
 * The benchmark's ceiling: a trivial FastCGI responder that answers every
 * request with a fixed 4 KB JSON body and does no other work.
 */
#include <string.h>

#include <fcgiapp.h>

#include "listen.h"

int
main(int argc, char *argv[])
{
	FCGX_Request	 r;
	static char	 body[4096];
	int		 rc;

	if ((rc = bench_listen(argc, argv)) != -1)
		return rc;
	memset(body, ' ', sizeof(body));
	body[0] = '{';
	body[sizeof(body) - 1] = '}';
	FCGX_Init();
	FCGX_InitRequest(&r, 0, 0);
	while (FCGX_Accept_r(&r) >= 0) {
		FCGX_PutS("Status: 200 OK\r\nContent-Type: "
		    "application/json\r\n\r\n",
		    r.out);
		FCGX_PutStr(body, sizeof(body), r.out);
		FCGX_Finish_r(&r);
	}
	return 0;
}
