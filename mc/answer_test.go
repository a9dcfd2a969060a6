package mc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// serve runs Serve for the hello at the start of in and returns the frames it sent.
func serve(t *testing.T, a Answer, in []byte) ([][]byte, error) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(in))
	hello, err := ReadHello(r, 0)
	if err != nil {
		t.Fatalf("hello % x: %v", in, err)
	}
	var sent [][]byte
	err = a.Serve(r, hello, func(frame []byte) error { sent = append(sent, bytes.Clone(frame)); return nil })
	return sent, err
}

func TestAnswerServesEachForm(t *testing.T) {
	a := Answer{Status: Status{VersionName: "down", Protocol: 1, MOTD: "§cgone"}, Disconnect: "try later"}
	statusAt47 := a.Status
	statusAt47.Protocol = 47 // the client's own, echoed
	json47, _ := statusAt47.JSON()
	pingPong := unhex("09 01 1122334455667788")
	login := Handshake{Protocol: 47, Host: "h", Port: 1, NextState: NextLogin}.AppendFrame(nil, "h")
	legacy := a.Status
	legacy.Protocol = 78
	cases := []struct {
		name string
		in   []byte
		want [][]byte
	}{
		{"status request and ping", append(append(bytes.Clone(handshake18), 0x01, 0x00), pingPong...),
			[][]byte{AppendStatusResponse(nil, json47), pingPong}},
		{"ping alone", append(bytes.Clone(handshake18), pingPong...), [][]byte{pingPong}},
		{"two requests end it", append(bytes.Clone(handshake18), 0x01, 0x00, 0x01, 0x00, 0x01, 0x00),
			[][]byte{AppendStatusResponse(nil, json47), AppendStatusResponse(nil, json47)}},
		{"login", login, [][]byte{AppendLoginDisconnect(nil, "try later")}},
		{"legacy 1.6", legacyPing16, [][]byte{AppendLegacyKick(nil, LegacyPing16, legacy)}},
	}
	for _, tc := range cases {
		sent, err := serve(t, a, tc.in)
		if err != nil || len(sent) != len(tc.want) {
			t.Errorf("%s: sent %d frames, %v; want %d", tc.name, len(sent), err, len(tc.want))
			continue
		}
		for i := range sent {
			if !bytes.Equal(sent[i], tc.want[i]) {
				t.Errorf("%s: frame %d = % x, want % x", tc.name, i, sent[i], tc.want[i])
			}
		}
	}
}

func TestAnswerReturnsReadAndSendErrors(t *testing.T) {
	a := Answer{Status: Status{MOTD: "x"}}
	// The client leaves after the status response: EOF, as is, for the caller to judge.
	if _, err := serve(t, a, append(bytes.Clone(handshake18), 0x01, 0x00)); err != io.EOF {
		t.Errorf("no ping: %v, want io.EOF", err)
	}
	if _, err := serve(t, a, append(bytes.Clone(handshake18), 0x01, 0x01)); !errors.Is(err, ErrTruncated) {
		t.Errorf("bad status packet: %v, want ErrTruncated", err)
	}
	a.Status.Favicon = string(make([]byte, maxStatusChars))
	if _, err := serve(t, a, append(bytes.Clone(handshake18), 0x01, 0x00)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized status: %v, want ErrTooLarge", err)
	}
	r := bufio.NewReader(bytes.NewReader(nil))
	broken := errors.New("broken pipe")
	hello := Hello{Handshake: Handshake{NextState: NextLogin}}
	if err := a.Serve(r, hello, func([]byte) error { return broken }); err != broken {
		t.Errorf("failed send: %v, want it returned", err)
	}
}
