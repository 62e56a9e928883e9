// gohandshake -- a TLS handshake load client in Go, independent of the suite's own (Java, BoringSSL) client: a closed
// loop of new TCP connections, each one full handshake (no session offered) and a close, the count printed every
// second. Go's crypto/tls verifies the server's chain against the CA bundle and the name, as a user's client would.
//
//	go build -o /tmp/gohandshake . && /tmp/gohandshake -target 127.0.0.1:4433 -name site.example.test -ca ca.pem
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	target := flag.String("target", "127.0.0.1:4433", "HOST:PORT of the TLS server")
	name := flag.String("name", "", "server name for SNI and the certificate check (default: the target's host)")
	caFile := flag.String("ca", "", "PEM CA bundle the server's chain must end at (required)")
	concurrency := flag.Int("c", 32, "handshakes under way at once")
	duration := flag.Duration("d", 30*time.Second, "how long to run")
	tls12 := flag.String("tls12", "", "offer only TLS 1.2 with this ECDHE suite: ecdsa or rsa (default: TLS 1.3 only)")
	flag.Parse()
	config, err := clientConfig(*caFile, *name, *target, *tls12)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohandshake:", err)
		os.Exit(2)
	}
	var done, failed atomic.Int64
	failures := failureCounts{byMessage: map[string]int64{}}
	stop := time.Now().Add(*duration)
	var wg sync.WaitGroup
	for i := 0; i < *concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := handshake(*target, config); err != nil {
					failed.Add(1)
					failures.add(err)
					time.Sleep(10 * time.Millisecond) // a refusing server is not spun against
				} else {
					done.Add(1)
				}
			}
		}()
	}
	start := time.Now()
	var last int64
	for second := 1; time.Now().Before(stop); second++ {
		time.Sleep(time.Until(start.Add(time.Duration(second) * time.Second)))
		n := done.Load()
		fmt.Printf("%4d s %7d handshakes/s  failed so far %d\n", second, n-last, failed.Load())
		last = n
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	fmt.Printf("total %d handshakes in %.1f s: %.0f/s, %d failed\n", done.Load(), elapsed,
		float64(done.Load())/elapsed, failed.Load())
	failures.print()
}

// clientConfig: one TLS version, no session cache (so every handshake is full), the chain checked.
func clientConfig(caFile, name, target, tls12 string) (*tls.Config, error) {
	if caFile == "" {
		return nil, fmt.Errorf("-ca is required")
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	if name == "" {
		if name, _, err = net.SplitHostPort(target); err != nil {
			return nil, err
		}
	}
	config := &tls.Config{ServerName: name, RootCAs: roots, SessionTicketsDisabled: true}
	switch tls12 {
	case "":
		config.MinVersion = tls.VersionTLS13
	case "ecdsa":
		config.MaxVersion = tls.VersionTLS12
		config.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	case "rsa":
		config.MaxVersion = tls.VersionTLS12
		config.CipherSuites = []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
	default:
		return nil, fmt.Errorf("-tls12 %q is not ecdsa or rsa", tls12)
	}
	return config, nil
}

// handshake: a new connection, one full handshake, a close.
func handshake(target string, config *tls.Config) error {
	raw, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		return err
	}
	conn := tls.Client(raw, config)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn.Handshake()
}

// failureCounts: failed handshakes by message, so a run says what failed as well as how often.
type failureCounts struct {
	mu        sync.Mutex
	byMessage map[string]int64
}

func (f *failureCounts) add(err error) {
	f.mu.Lock()
	f.byMessage[err.Error()]++
	f.mu.Unlock()
}

func (f *failureCounts) print() {
	messages := make([]string, 0, len(f.byMessage))
	for m := range f.byMessage {
		messages = append(messages, m)
	}
	sort.Slice(messages, func(i, j int) bool { return f.byMessage[messages[i]] > f.byMessage[messages[j]] })
	for _, m := range messages {
		fmt.Printf("  %d failed: %s\n", f.byMessage[m], m)
	}
}
