package moved

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleRecord() Record {
	return Record{
		Transport: "minecraft", Listener: "127.0.0.1:25577", Route: "survival", Client: "203.0.113.7:50123",
		Host: "play.example.net", Next: 2, Protocol: 47, Backend: "127.0.0.1:25565", Player: "Steve",
		UUID: "069a79f4-44e9-4726-a5be-fca90e38aaf5", Country: "NL", Subject: "alex", TokenKey: "k1",
		Bridge: "127.0.0.1:25565", ClientState: []byte{1, 2, 3}, Tracker: []byte{4, 5}, TLSState: []byte{6, 7, 8}, TLSVersion: 0x0304, TLSCipher: 0x1301, TLSResumed: true, LoginCipher: []byte{9, 10, 11}, ProxyLogin: true, Joined: true, RawStream: true, Since: time.Unix(1700000000, 123456789),
		Up: 1 << 40, Down: 12345,
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []Record{sampleRecord(), {Transport: "minecraft", Since: time.Unix(0, 0), TransferIn: true, EarlyData: true}} {
		b, err := r.Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if !got.Since.Equal(r.Since) {
			t.Errorf("since %v, want %v", got.Since, r.Since)
		}
		got.Since, r.Since = time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
		}
	}
}

// Every record that is not one of this format is a *Error, never a panic or a record.
func TestRecordRefusals(t *testing.T) {
	good, _ := sampleRecord().Append(nil)
	other := append([]byte(nil), good...)
	binary.BigEndian.PutUint16(other, Format+1)
	flags := append([]byte(nil), good...)
	flags[len(flags)-25] = 0x80 // the flags byte, before since, up and down
	negative := append([]byte(nil), good...)
	binary.BigEndian.PutUint64(negative[len(negative)-8:], 1<<63)
	long := good[:2:2]
	long = binary.BigEndian.AppendUint16(long, MaxText+1)
	long = append(long, strings.Repeat("x", MaxText+1)...)
	resumedV1 := formatNoTLSRecord(t, sampleRecord())
	resumedV1[len(resumedV1)-25] |= flagTLSResumed // a format without TLS, a flag of it
	loginV2 := olderRecord(t, sampleRecord(), formatNoLogin)
	loginV2[len(loginV2)-25] |= flagProxyLogin // a format without the login cipher, a flag of it
	noLogin := sampleRecord()
	noLogin.ProxyLogin = false
	cipherAlone, _ := noLogin.Append(nil)
	cases := map[string][]byte{
		"TLS flag in format 1": resumedV1, "proxy login flag in format 2": loginV2,
		"a login cipher without a proxy login": cipherAlone,
		"empty":                                nil, "another format": other, "unknown flags": flags, "negative bytes": negative,
		"text over its bound": long, "bytes after the end": append(append([]byte(nil), good...), 0),
	}
	for n := 1; n < len(good); n += 7 {
		cases[fmt.Sprintf("cut at %d", n)] = good[:n]
	}
	for name, b := range cases {
		var re *Error
		if _, err := Parse(b); !errors.As(err, &re) {
			t.Errorf("%s: %v, want a Error", name, err)
		}
	}
	if _, err := (Record{Host: strings.Repeat("h", MaxText+1)}).Append(nil); err == nil {
		t.Error("a host over the bound was encoded")
	}
}

// olderRecord is r as an older format wrote it: format 1 without the TLS state and the login
// cipher, format 2 without the login cipher.
func olderRecord(t testing.TB, r Record, format uint16) []byte {
	t.Helper()
	cut := 2 // the login cipher's empty length, before flags, since, up and down
	r.LoginCipher, r.ProxyLogin = nil, false
	if format == formatNoTLS {
		r.TLSState, r.TLSVersion, r.TLSCipher, r.TLSResumed = nil, 0, 0, false
		cut += 6 // the TLS state's empty length, version, cipher
	}
	b, err := r.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint16(b, format)
	tail := len(b) - 25
	return append(b[:tail-cut:tail-cut], b[tail:]...)
}

func formatNoTLSRecord(t testing.TB, r Record) []byte { return olderRecord(t, r, formatNoTLS) }

// A record of format 2, from a binary before the login cipher, still reads, with none.
func TestRecordFormatWithoutLogin(t *testing.T) {
	want := sampleRecord()
	got, err := Parse(olderRecord(t, want, formatNoLogin))
	if err != nil {
		t.Fatal(err)
	}
	want.LoginCipher, want.ProxyLogin = nil, false
	got.Since, want.Since = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("format 2:\n got %+v\nwant %+v", got, want)
	}
}

// A record of format 1, from a binary before the TLS state, still reads, with none.
func TestRecordFormatWithoutTLS(t *testing.T) {
	want := sampleRecord()
	got, err := Parse(formatNoTLSRecord(t, want))
	if err != nil {
		t.Fatal(err)
	}
	want.TLSState, want.TLSVersion, want.TLSCipher, want.TLSResumed = nil, 0, 0, false
	want.LoginCipher, want.ProxyLogin = nil, false
	got.Since, want.Since = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("format 1:\n got %+v\nwant %+v", got, want)
	}
}

func FuzzRecord(f *testing.F) {
	good, _ := sampleRecord().Append(nil)
	f.Add(good)
	f.Add(good[:10])
	f.Add(formatNoTLSRecord(f, sampleRecord()))
	f.Add(olderRecord(f, sampleRecord(), formatNoLogin))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		again, err := r.Append(nil)
		if err != nil {
			t.Fatalf("a record read could not be written: %v", err)
		}
		if binary.BigEndian.Uint16(b) != Format { // an older format: written again as the current one
			if back, err := Parse(again); err != nil || !reflect.DeepEqual(back, r) {
				t.Fatalf("older format read, written and read again: %+v (%v), was %+v", back, err, r)
			}
			return
		}
		if string(again) != string(b) {
			t.Fatalf("read and written again: %x, was %x", again, b)
		}
	})
}
