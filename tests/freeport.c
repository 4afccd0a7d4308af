/*
 * freeport: print N free TCP ports on 127.0.0.1 (default 1), chosen by
 * the kernel, for the test harness.  Ports are held until all are picked
 * so they differ.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sa;
	socklen_t		 len;
	int			 n = argc > 1 ? (int)strtol(argv[1], NULL,
	    10) : 1;
	int			 fds[32], i;

	if (n < 1 || n > 32)
		return 2;
	for (i = 0; i < n; i++) {
		if ((fds[i] = socket(AF_INET, SOCK_STREAM, 0)) < 0)
			return 1;
		sa.sin_family = AF_INET;
		sa.sin_port = 0;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(sa);
		if (bind(fds[i], (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		    getsockname(fds[i], (struct sockaddr *)&sa, &len) != 0)
			return 1;
		printf("%d\n", ntohs(sa.sin_port));
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return 0;
}
