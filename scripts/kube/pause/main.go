// The pod sandbox ("pause") image's only program: it holds the pod's namespaces and waits until it is told to
// stop. As PID 1 of its namespace it must handle SIGTERM/SIGINT itself (the kernel ignores unhandled signals
// there) and reap orphaned children, like the upstream pause program does.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	children := make(chan os.Signal, 16)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			os.Exit(0)
		case <-children:
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
