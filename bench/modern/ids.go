package modern

// Protocol is the protocol number of Minecraft 1.21 and 1.21.1, the one version this package
// speaks.
const Protocol int32 = 767

// Next states a handshake asks for.
const (
	NextLogin    int32 = 2
	NextTransfer int32 = 3 // a login after a Transfer (1.20.5+)
)

// Packet ids of protocol 767, from minecraft-data's data/pc/1.21.1/protocol.json (npm package
// minecraft-data), each state's toClient and toServer mappings. They are kept apart from the
// proxy's own tables (package mc) on purpose: tests check the proxy against this independent
// reading of the protocol.
const (
	HandshakeID int32 = 0x00 // serverbound set_protocol

	// Login state, clientbound.
	LoginDisconnectID    int32 = 0x00 // reason as a JSON text string
	LoginEncryptionID    int32 = 0x01 // encryption_begin
	LoginSuccessID       int32 = 0x02
	LoginCompressionID   int32 = 0x03 // compress
	LoginPluginRequestID int32 = 0x04
	LoginCookieRequestID int32 = 0x05
	// Login state, serverbound.
	LoginStartID          int32 = 0x00
	LoginPluginResponseID int32 = 0x02
	LoginAcknowledgedID   int32 = 0x03
	LoginCookieResponseID int32 = 0x04

	// Configuration state, clientbound.
	ConfigCookieRequestID int32 = 0x00
	ConfigPluginMessageID int32 = 0x01 // custom_payload
	ConfigDisconnectID    int32 = 0x02
	ConfigFinishID        int32 = 0x03 // finish_configuration
	ConfigKeepAliveID     int32 = 0x04
	ConfigPingID          int32 = 0x05
	ConfigStoreCookieID   int32 = 0x0a
	ConfigTransferID      int32 = 0x0b
	// Configuration state, serverbound.
	ConfigCookieResponseID  int32 = 0x01
	ConfigPluginMessageUpID int32 = 0x02
	ConfigFinishAckID       int32 = 0x03 // finish_configuration
	ConfigKeepAliveUpID     int32 = 0x04
	ConfigPongID            int32 = 0x05

	// Play state, clientbound.
	PlayCookieRequestID int32 = 0x16
	PlayPluginMessageID int32 = 0x19 // custom_payload
	PlayDisconnectID    int32 = 0x1d // kick_disconnect
	PlayKeepAliveID     int32 = 0x26
	PlayPingID          int32 = 0x35
	PlayReconfigureID   int32 = 0x69 // start_configuration
	PlayStoreCookieID   int32 = 0x6b
	PlayTransferID      int32 = 0x73
	// Play state, serverbound.
	PlayReconfigureAckID  int32 = 0x0c // configuration_acknowledged
	PlayCookieResponseID  int32 = 0x11
	PlayPluginMessageUpID int32 = 0x12
	PlayKeepAliveUpID     int32 = 0x18
	PlayPongID            int32 = 0x27
)

// Channels of the plugin messages the fake server and player exchange.
const (
	BrandChannel = "minecraft:brand"
	EchoChannel  = "test:echo"
)

// commonIDs are the packets the configuration and play states share, under different ids, so
// that one handler serves both.
type commonIDs struct {
	state string
	// clientbound
	cookieRequest, pluginMessage, disconnect, keepAlive, ping, storeCookie, transfer int32
	// switch is Finish Configuration in configuration, Start Configuration in play; the client
	// acknowledges it with switchAck and goes to the other state.
	switchState int32
	// serverbound
	cookieResponse, pluginMessageUp, keepAliveUp, pong, switchAck int32
}

// State names, as errors and Transfer.State give them.
const (
	StateLogin         = "login"
	StateConfiguration = "configuration"
	StatePlay          = "play"
)

var configuration = &commonIDs{
	state: StateConfiguration, cookieRequest: ConfigCookieRequestID, pluginMessage: ConfigPluginMessageID,
	disconnect: ConfigDisconnectID, keepAlive: ConfigKeepAliveID, ping: ConfigPingID,
	storeCookie: ConfigStoreCookieID, transfer: ConfigTransferID, switchState: ConfigFinishID,
	cookieResponse: ConfigCookieResponseID, pluginMessageUp: ConfigPluginMessageUpID,
	keepAliveUp: ConfigKeepAliveUpID, pong: ConfigPongID, switchAck: ConfigFinishAckID,
}

var play = &commonIDs{
	state: StatePlay, cookieRequest: PlayCookieRequestID, pluginMessage: PlayPluginMessageID,
	disconnect: PlayDisconnectID, keepAlive: PlayKeepAliveID, ping: PlayPingID,
	storeCookie: PlayStoreCookieID, transfer: PlayTransferID, switchState: PlayReconfigureID,
	cookieResponse: PlayCookieResponseID, pluginMessageUp: PlayPluginMessageUpID,
	keepAliveUp: PlayKeepAliveUpID, pong: PlayPongID, switchAck: PlayReconfigureAckID,
}

// other is the state a switch leads to.
func (s *commonIDs) other() *commonIDs {
	if s == configuration {
		return play
	}
	return configuration
}
