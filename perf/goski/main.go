// goski -- an SKI load client outside the JVM, for figures that no JIT in the client colours: N HTTP/2 connections
// (golang.org/x/net/http2), a closed loop of P requests in flight on each, SIGN ecdsa_secp256r1_sha256 with a key
// drawn uniformly from a key list (perf/bin/ski-scale writes one), every answer checked for a 200 with an output.
// Prints the rate and the slowest answer each second (the first requests on each connection include its TLS
// handshake, as a user's would) and a RESULT line with the percentiles. Build: cd perf/goski && go build.
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

func main() {
	target := flag.String("target", "127.0.0.1:18443", "")
	pki := flag.String("pki", "", "dir with ca.pem client.pem client.key")
	keysFile := flag.String("keys", "", "key list")
	limit := flag.Int("limit", 0, "use the first N keys")
	conns := flag.Int("c", 32, "connections")
	per := flag.Int("per", 8, "in flight per connection")
	dur := flag.Duration("d", 30*time.Second, "")
	flag.Parse()
	cert, err := tls.LoadX509KeyPair(*pki+"/client.pem", *pki+"/client.key")
	must(err)
	caPem, err := os.ReadFile(*pki + "/ca.pem")
	must(err)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPem)
	var ids []string
	f, err := os.Open(*keysFile)
	must(err)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		ids = append(ids, strings.Fields(l)[0])
		if *limit > 0 && len(ids) >= *limit {
			break
		}
	}
	input := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 96))
	var done, errs atomic.Int64
	var secondMax atomic.Int64 // the slowest answer (µs) since the last per-second line
	var mu sync.Mutex
	var lat []float64
	stop := time.Now().Add(*dur)
	var wg sync.WaitGroup
	for c := 0; c < *conns; c++ {
		tr := &http2.Transport{TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool,
			ServerName: "localhost"}, StrictMaxConcurrentStreams: true}
		cl := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		for p := 0; p < *per; p++ {
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				r := rand.New(rand.NewSource(seed))
				local := make([]float64, 0, 1<<16)
				for time.Now().Before(stop) {
					id := ids[r.Intn(len(ids))]
					body := `{"protocol":"TLS 1.3","method":"SIGN","scheme":"ecdsa_secp256r1_sha256","spki":"` + id + `","input":"` + input + `"}`
					t0 := time.Now()
					resp, err := cl.Post("https://"+*target+"/", "application/json", strings.NewReader(body))
					if err != nil {
						errs.Add(1)
						noteError(err.Error())
						continue
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					var out map[string]string
					if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil || out["output"] == "" {
						errs.Add(1)
						noteError(fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, b))
						continue
					}
					micros := time.Since(t0).Microseconds()
					for seen := secondMax.Load(); micros > seen && !secondMax.CompareAndSwap(seen, micros); seen = secondMax.Load() {
					}
					local = append(local, float64(micros)/1000)
					done.Add(1)
				}
				mu.Lock()
				lat = append(lat, local...)
				mu.Unlock()
			}(int64(c*1000 + p))
		}
	}
	start := time.Now()
	go func() {
		last := int64(0)
		for range time.Tick(time.Second) {
			d := done.Load()
			fmt.Printf("%4.0fs %7d/s errors %d max %.1f ms\n", time.Since(start).Seconds(), d-last, errs.Load(),
				float64(secondMax.Swap(0))/1000)
			last = d
		}
	}()
	wg.Wait()
	el := time.Since(start).Seconds()
	if len(lat) == 0 {
		fmt.Printf("RESULT keys=%d conns=%d per=%d: no answer in %.1fs, errors %d\n", len(ids), *conns, *per, el,
			errs.Load())
		printErrors()
		os.Exit(1)
	}
	sort.Float64s(lat)
	q := func(p float64) float64 { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("RESULT keys=%d conns=%d per=%d: %.0f/s over %.1fs, errors %d, p50 %.2f p99 %.2f p99.9 %.2f max %.2f ms\n",
		len(ids), *conns, *per, float64(len(lat))/el, el, errs.Load(), q(.5), q(.99), q(.999), lat[len(lat)-1])
	printErrors()
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// errorKinds counts failures by message, so a run says what failed and not only how often.
var (
	errorMu    sync.Mutex
	errorKinds = map[string]int{}
)

func noteError(msg string) {
	errorMu.Lock()
	defer errorMu.Unlock()
	if _, seen := errorKinds[msg]; !seen && len(errorKinds) >= 20 {
		msg = "(other)"
	}
	errorKinds[msg]++
}

func printErrors() {
	errorMu.Lock()
	defer errorMu.Unlock()
	for msg, n := range errorKinds {
		fmt.Printf("ERROR x%d: %s\n", n, msg)
	}
}
