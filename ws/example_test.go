package ws_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/moonbridge/moonbridge/ws"
)

// A server upgrades requests on ws.DefaultPath and hands each connection, a byte stream, to its
// handler (here an echo); a client dials it and talks through the same Conn type.
func ExampleDial() {
	srv := ws.NewServer(ws.ServerConfig{Conn: ws.DefaultConfig()}, func(c *ws.Conn, _ *http.Request) {
		io.Copy(c, c) // echo until the client closes
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	httpServer := srv.HTTPServer()
	go httpServer.Serve(ln)
	defer httpServer.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + ln.Addr().String() + ws.DefaultPath, Conn: ws.DefaultConfig()})
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("hello")); err != nil {
		panic(err)
	}
	reply := make([]byte, 5)
	if _, err := io.ReadFull(conn, reply); err != nil {
		panic(err)
	}
	fmt.Println(string(reply))
	// Output: hello
}
